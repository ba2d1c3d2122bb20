import { describe, expect, test } from "bun:test";
import { distanceMiles } from "../../src/domain/location.ts";
import { aLocation } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const austin = { latitude: 30.2672, longitude: -97.7431 };

export function locationRepositoryContract(target: () => ContractTarget) {
  describe("LocationRepository", () => {
    const repo = () => target().repos.locations;

    async function arrange() {
      const shops = {
        downtown: aLocation({ name: "Downtown Pepper Co", ...austin, postalCode: "78701" }),
        roundRock: aLocation({ name: "round rock heat", city: "Round Rock", latitude: 30.5083, longitude: -97.6789, postalCode: "78664" }),
        dallas: aLocation({ name: "Big D Sauces", city: "Dallas", latitude: 32.7767, longitude: -96.797, postalCode: "75201" }),
        denver: aLocation({ name: "Mile High Heat", city: "Denver", state: "CO", latitude: 39.7392, longitude: -104.9903, postalCode: "80202" }),
      };
      for (const shop of Object.values(shops)) await repo().create(shop);
      return shops;
    }

    test("lists by name, filtered by state and by a name, city or postal-code search", async () => {
      const shops = await arrange();
      const names = async (q: { state?: string; q?: string }) => (await repo().list({ page: 1, limit: 20, ...q })).items.map((l) => l.name);
      expect(await names({})).toEqual(["Big D Sauces", "Downtown Pepper Co", "Mile High Heat", "round rock heat"]);
      expect(await names({ state: "CO" })).toEqual(["Mile High Heat"]);
      expect(await names({ q: "ROUND" })).toEqual(["round rock heat"]);
      expect(await names({ q: "dallas" })).toEqual(["Big D Sauces"]);
      expect(await names({ q: "787" })).toEqual(["Downtown Pepper Co"]);
      expect(await names({ state: "TX", q: "heat" })).toEqual(["round rock heat"]);
      // A composed city (as the shop keeps it) found by its decomposed spelling.
      await repo().create(aLocation({ name: "Chile Shed", city: "Española", state: "NM", postalCode: "87532" }));
      expect(await names({ q: "Española".normalize("NFD") })).toEqual(["Chile Shed"]);
      expect(await repo().findByNameAndPostalCode("Mile High Heat", "80202")).toEqual(shops.denver);
    });

    test("pages with a total", async () => {
      await arrange();
      const second = await repo().list({ page: 2, limit: 3 });
      expect(second.total).toBe(4);
      expect(second.items.map((l) => l.name)).toEqual(["round rock heat"]);
      expect(await repo().list({ page: 5, limit: 3 })).toEqual({ items: [], total: 4 });
      expect(await repo().list({ page: 1, limit: 3, state: "ZZ" })).toEqual({ items: [], total: 0 });
    });

    test("nearby: inside the radius only, nearest first, with the haversine distance", async () => {
      const shops = await arrange();
      const { items: found, total } = await repo().nearby({ ...austin, radiusMiles: 200, limit: 10 });
      expect(total).toBe(3);
      expect(found.map((l) => l.name)).toEqual(["Downtown Pepper Co", "round rock heat", "Big D Sauces"]);
      expect(found[0]?.distanceMiles).toBeCloseTo(0, 6);
      expect(found[1]?.distanceMiles).toBeCloseTo(distanceMiles(austin, shops.roundRock), 6);
      expect(found[2]?.distanceMiles).toBeCloseTo(distanceMiles(austin, shops.dallas), 6);

      const close = await repo().nearby({ ...austin, radiusMiles: 25, limit: 10 });
      expect(close.items.map((l) => l.name)).toEqual(["Downtown Pepper Co", "round rock heat"]);
      const first = await repo().nearby({ ...austin, radiusMiles: 500, limit: 1 });
      expect(first).toMatchObject({ items: [{ name: "Downtown Pepper Co" }], total: 3 });
      expect(await repo().nearby({ latitude: 0, longitude: 0, radiusMiles: 10, limit: 5 })).toEqual({ items: [], total: 0 });
    });
  });
}
