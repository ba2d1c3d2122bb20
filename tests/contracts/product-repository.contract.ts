import { describe, expect, test } from "bun:test";
import type { ProductQuery } from "../../src/domain/product.ts";
import { aProduct } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const everything: ProductQuery = { sort: "newest", page: 1, limit: 100 };

export function productRepositoryContract(target: () => ContractTarget) {
  describe("ProductRepository", () => {
    const repo = () => target().repos.products;

    test("a created product reads back whole, by id and by slug", async () => {
      const product = aProduct({ compareAtPrice: 1499, images: ["https://a.example/1.jpg", "https://a.example/2.jpg"] });
      await repo().create(product);
      expect(await repo().findByIdOrSlug(product.id)).toEqual(product);
      expect(await repo().findByIdOrSlug(product.slug)).toEqual(product);
      expect(await repo().findByIdOrSlug("no-such-sauce")).toBeNull();
    });

    test("lists only active products and counts them", async () => {
      await repo().create(aProduct({ name: "On Sale" }));
      await repo().create(aProduct({ name: "Retired", isActive: false }));
      const page = await repo().list(everything);
      expect(page.items.map((p) => p.name)).toEqual(["On Sale"]);
      expect(page.total).toBe(1);
    });

    test("search matches name or description, ignoring case, and takes % and _ literally", async () => {
      await repo().create(aProduct({ name: "Ghost Pepper Fury", description: "Smoky." }));
      await repo().create(aProduct({ name: "Verde", description: "Tangy tomatillo and GHOST chili." }));
      await repo().create(aProduct({ name: "100% Habanero", description: "Pure." }));
      const names = async (search: string) =>
        (await repo().list({ ...everything, search, sort: "name_asc" })).items.map((p) => p.name);
      expect(await names("ghost")).toEqual(["Ghost Pepper Fury", "Verde"]);
      expect(await names("100%")).toEqual(["100% Habanero"]);
      expect(await names("%")).toEqual(["100% Habanero"]);
      expect(await names("_")).toEqual([]);
    });

    test("filters by heat level and by an inclusive price range", async () => {
      await repo().create(aProduct({ name: "Mild", heatLevel: 0, price: 599 }));
      await repo().create(aProduct({ name: "Medium", heatLevel: 3, price: 1299 }));
      await repo().create(aProduct({ name: "Hot", heatLevel: 3, price: 2450 }));
      const names = async (q: Partial<ProductQuery>) =>
        (await repo().list({ ...everything, sort: "price_asc", ...q })).items.map((p) => p.name);
      expect(await names({ heatLevel: 3 })).toEqual(["Medium", "Hot"]);
      expect(await names({ minPrice: 1299 })).toEqual(["Medium", "Hot"]);
      expect(await names({ maxPrice: 1299 })).toEqual(["Mild", "Medium"]);
      expect(await names({ minPrice: 600, maxPrice: 2449 })).toEqual(["Medium"]);
    });

    test("sorts by every supported order", async () => {
      await repo().create(aProduct({ name: "bravo", price: 500, heatLevel: 5, createdAt: new Date("2026-01-02") }));
      await repo().create(aProduct({ name: "Alpha", price: 900, heatLevel: 1, createdAt: new Date("2026-01-03") }));
      await repo().create(aProduct({ name: "Charlie", price: 700, heatLevel: 3, createdAt: new Date("2026-01-01") }));
      const order = async (sort: ProductQuery["sort"]) =>
        (await repo().list({ ...everything, sort })).items.map((p) => p.name);
      expect(await order("newest")).toEqual(["Alpha", "bravo", "Charlie"]);
      expect(await order("price_asc")).toEqual(["bravo", "Charlie", "Alpha"]);
      expect(await order("price_desc")).toEqual(["Alpha", "Charlie", "bravo"]);
      expect(await order("name_asc")).toEqual(["Alpha", "bravo", "Charlie"]);
      expect(await order("name_desc")).toEqual(["Charlie", "bravo", "Alpha"]);
      expect(await order("heat_asc")).toEqual(["Alpha", "Charlie", "bravo"]);
      expect(await order("heat_desc")).toEqual(["bravo", "Charlie", "Alpha"]);
    });

    test("pages through equal sort keys without repeating or skipping a product", async () => {
      for (let i = 0; i < 7; i++) await repo().create(aProduct({ price: 1000 }));
      const seen: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const result = await repo().list({ ...everything, sort: "price_asc", page, limit: 2 });
        expect(result.total).toBe(7);
        seen.push(...result.items.map((p) => p.id));
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      expect(await repo().list({ ...everything, page: 9, limit: 2 })).toEqual({ items: [], total: 7 });
    });
  });
}
