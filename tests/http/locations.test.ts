import { beforeEach, describe, expect, test } from "bun:test";
import { aLocation } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

let t: TestApp;

beforeEach(async () => {
  t = createTestApp();
  for (const l of [
    aLocation({ name: "Austin Heat", latitude: 30.2672, longitude: -97.7431, postalCode: "78701" }),
    aLocation({ name: "Round Rock Peppers", city: "Round Rock", latitude: 30.5083, longitude: -97.6789, postalCode: "78664" }),
    aLocation({ name: "Dallas Drip", city: "Dallas", latitude: 32.7767, longitude: -96.797, postalCode: "75201" }),
    aLocation({ name: "Denver Burn", city: "Denver", state: "CO", latitude: 39.7392, longitude: -104.9903, postalCode: "80202" }),
  ]) {
    await t.deps.repos.locations.create(l);
  }
});

describe("GET /api/locations", () => {
  test("lists locations in the envelope, filtered by state in any case and by q", async () => {
    const all = await t.call("GET", "/api/locations");
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ total: 4, page: 1, limit: 20 });
    const co = await t.call("GET", "/api/locations?state=co");
    expect(co.body.data.map((l: any) => l.name)).toEqual(["Denver Burn"]);
    const q = await t.call("GET", "/api/locations?q=round");
    expect(q.body.data.map((l: any) => l.name)).toEqual(["Round Rock Peppers"]);
  });

  test.each(["state=Texas", "limit=0", "page=-1", "q="])("bad query %s is a 400", async (query) => {
    const res = await t.call("GET", `/api/locations?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });
});

describe("GET /api/locations/nearby", () => {
  test("returns locations within the radius, nearest first, with distanceMiles", async () => {
    const res = await t.call("GET", "/api/locations/nearby?lat=30.2672&lng=-97.7431&radius=200");
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: any) => l.name)).toEqual(["Austin Heat", "Round Rock Peppers", "Dallas Drip"]);
    expect(res.body.data[0].distanceMiles).toBe(0);
    expect(res.body.data[1].distanceMiles).toBeCloseTo(17.1, 0);
    expect(res.body.data[2].distanceMiles).toBeCloseTo(182.4, 0);
  });

  test("the default radius is 25 miles and limit caps the result", async () => {
    const near = await t.call("GET", "/api/locations/nearby?lat=30.2672&lng=-97.7431");
    expect(near.body.data.map((l: any) => l.name)).toEqual(["Austin Heat", "Round Rock Peppers"]);
    const one = await t.call("GET", "/api/locations/nearby?lat=30.2672&lng=-97.7431&limit=1");
    expect(one.body.data).toHaveLength(1);
    expect(one.body.meta).toEqual({ total: 2, page: 1, limit: 1 });
  });

  test.each([
    ["lat=abc&lng=-97", "lat"],
    ["lng=-97", "lat"],
    ["lat=91&lng=0", "lat"],
    ["lat=30&lng=-181", "lng"],
    ["lat=30&lng=-97&radius=-1", "radius"],
    ["lat=30&lng=-97&radius=0", "radius"],
    ["lat=30&lng=-97&radius=501", "radius"],
    ["lat=30&lng=-97&limit=101", "limit"],
    ["lat=&lng=", "lat"],
    ["lat=30&lng=-97&radius=", "radius"],
  ])("bad query %s is a 400 naming %s", async (query, field) => {
    const res = await t.call("GET", `/api/locations/nearby?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: any) => i.path)).toContain(field);
  });
});
