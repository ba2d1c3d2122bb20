import { beforeEach, describe, expect, test } from "bun:test";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

let t: TestApp;

beforeEach(async () => {
  t = createTestApp();
  const products = [
    aProduct({ name: "Smoky Chipotle", slug: "smoky-chipotle", price: 899, heatLevel: 2, compareAtPrice: 1099 }),
    aProduct({ name: "Ghost Pepper Fury", slug: "ghost-pepper-fury", price: 1499, heatLevel: 5 }),
    aProduct({ name: "Garden Verde", slug: "garden-verde", price: 1299, heatLevel: 2, description: "Tomatillo and lime." }),
    aProduct({ name: "Retired Reaper", slug: "retired-reaper", isActive: false }),
  ];
  for (const p of products) await t.deps.repos.products.create(p);
});

describe("GET /api/products", () => {
  test("lists active products in the envelope, with paging meta and dollar prices", async () => {
    const res = await t.call("GET", "/api/products?sort=price_asc");
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.error).toBeNull();
    expect(res.body.meta).toEqual({ total: 3, page: 1, limit: 20 });
    expect(res.body.data.map((p: any) => p.name)).toEqual(["Smoky Chipotle", "Garden Verde", "Ghost Pepper Fury"]);
    expect(res.body.data[0]).toMatchObject({ price: 8.99, compareAtPrice: 10.99, heatLevel: 2, isActive: true });
    expect(res.body.data[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("filters by search, heat level and price range given in dollars", async () => {
    const names = async (query: string) => (await t.call("GET", `/api/products?${query}`)).body.data.map((p: any) => p.name).sort();
    expect(await names("search=lime")).toEqual(["Garden Verde"]);
    expect(await names("heatLevel=2")).toEqual(["Garden Verde", "Smoky Chipotle"]);
    expect(await names("minPrice=9&maxPrice=14.99")).toEqual(["Garden Verde", "Ghost Pepper Fury"]);
    expect(await names("search=reaper")).toEqual([]);
  });

  test("pages with page and limit", async () => {
    const res = await t.call("GET", "/api/products?sort=price_asc&page=2&limit=2");
    expect(res.body.meta).toEqual({ total: 3, page: 2, limit: 2 });
    expect(res.body.data.map((p: any) => p.name)).toEqual(["Ghost Pepper Fury"]);
  });

  test.each([
    ["limit=0", "limit"],
    ["limit=1000", "limit"],
    ["limit=abc", "limit"],
    ["page=0", "page"],
    ["heatLevel=6", "heatLevel"],
    ["heatLevel=1.5", "heatLevel"],
    ["minPrice=-1", "minPrice"],
    ["minPrice=20&maxPrice=10", "minPrice"],
    ["sort=cheapest", "sort"],
    ["heatLevel=", "heatLevel"],
    ["minPrice=", "minPrice"],
    ["limit=0x10", "limit"],
    ["limit=1e1", "limit"],
    ["maxPrice=Infinity", "maxPrice"],
    ["minPrice=1.005", "minPrice"],
    ["minPrice=0.30000000000000004", "minPrice"],
    ["maxPrice=2.000000000000000000001", "maxPrice"],
  ])("bad query %s is a 400 naming %s", async (query, field) => {
    const res = await t.call("GET", `/api/products?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null, error: "Invalid request" });
    expect(res.body.details.issues.map((i: any) => i.path)).toContain(field);
  });

  test("a price with a fraction of a cent is a validation issue, not a rounding", async () => {
    const res = await t.call("GET", "/api/products?minPrice=1.005");
    expect(res.body.details.issues).toEqual([{ path: "minPrice", message: "must have at most 2 decimals" }]);
  });

  test("prices in dollars filter on exact cents", async () => {
    const res = await t.call("GET", "/api/products?minPrice=14.99&maxPrice=14.99");
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.price)).toEqual(res.body.data.map(() => 14.99));
    expect(res.body.meta.total).toBeGreaterThan(0);
  });

  test("a NUL character in the search is a 400, not a database error", async () => {
    const res = await t.call("GET", "/api/products?search=a%00b");
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "search", message: "must not contain a NUL character" }]);
  });
});

describe("GET /api/products/:id", () => {
  test("finds a product by id and by slug", async () => {
    const bySlug = await t.call("GET", "/api/products/ghost-pepper-fury");
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toMatchObject({ name: "Ghost Pepper Fury", price: 14.99, heatLevel: 5 });
    const byId = await t.call("GET", `/api/products/${bySlug.body.data.id}`);
    expect(byId.body.data).toEqual(bySlug.body.data);
  });

  test("an unknown or inactive product is a 404 in the envelope", async () => {
    for (const key of ["no-such-sauce", "retired-reaper", "z12345678901234567890123"]) {
      const res = await t.call("GET", `/api/products/${key}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: null, error: "Product not found" });
    }
  });

  test.each(["Not_A_Cuid!", "UPPER", "a--b", "x".repeat(201)])("%s is neither an id nor a slug: 400", async (key) => {
    const res = await t.call("GET", `/api/products/${encodeURIComponent(key)}`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("id");
  });
});
