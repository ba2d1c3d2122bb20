import { describe, expect, test } from "bun:test";
import { type AdminProductQuery, MAX_INVENTORY, type ProductQuery } from "../../src/domain/product.ts";
import { aProduct } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import type { ContractTarget } from "./targets.ts";

const everything: ProductQuery = { sort: "newest", page: 1, limit: 100 };
const firstPage: AdminProductQuery = { page: 1, limit: 100 };

export function productRepositoryContract(target: () => ContractTarget) {
  describe("ProductRepository", () => {
    const repo = () => target().repos.products;

    test("findByIdOrSlug answers with the product whose id it is, even if another's slug were the same text", async () => {
      const owner = aProduct();
      const impostor = aProduct({ slug: owner.id });
      await repo().create(impostor);
      await repo().create(owner);
      expect((await repo().findByIdOrSlug(owner.id))?.id).toBe(owner.id);
      expect((await repo().findByIdOrSlug(impostor.id))?.id).toBe(impostor.id);
    });

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
      const names = async (search: string) => (await repo().list({ ...everything, search, sort: "name_asc" })).items.map((p) => p.name);
      expect(await names("ghost")).toEqual(["Ghost Pepper Fury", "Verde"]);
      expect(await names("100%")).toEqual(["100% Habanero"]);
      expect(await names("%")).toEqual(["100% Habanero"]);
      expect(await names("_")).toEqual([]);
    });

    test("search finds a composed name (NFC, as the shop keeps names) by its decomposed spelling too", async () => {
      await repo().create(aProduct({ name: "Crème Brûlée Heat", description: "Smoky." }));
      for (const search of ["crème", "brûlée".normalize("NFD")]) {
        expect((await repo().list({ ...everything, search, sort: "name_asc" })).items.map((p) => p.name)).toEqual(["Crème Brûlée Heat"]);
      }
      expect((await repo().listForAdmin({ page: 1, limit: 20, q: "crème".normalize("NFD") })).items.map((p) => p.name)).toEqual(["Crème Brûlée Heat"]);
    });

    test("filters by heat level and by an inclusive price range", async () => {
      await repo().create(aProduct({ name: "Mild", heatLevel: 0, price: 599 }));
      await repo().create(aProduct({ name: "Medium", heatLevel: 3, price: 1299 }));
      await repo().create(aProduct({ name: "Hot", heatLevel: 3, price: 2450 }));
      const names = async (q: Partial<ProductQuery>) => (await repo().list({ ...everything, sort: "price_asc", ...q })).items.map((p) => p.name);
      expect(await names({ heatLevel: 3 })).toEqual(["Medium", "Hot"]);
      expect(await names({ minPrice: 1299 })).toEqual(["Medium", "Hot"]);
      expect(await names({ maxPrice: 1299 })).toEqual(["Mild", "Medium"]);
      expect(await names({ minPrice: 600, maxPrice: 2449 })).toEqual(["Medium"]);
    });

    test("sorts by every supported order", async () => {
      await repo().create(aProduct({ name: "bravo", price: 500, heatLevel: 5, createdAt: new Date("2026-01-02") }));
      await repo().create(aProduct({ name: "Alpha", price: 900, heatLevel: 1, createdAt: new Date("2026-01-03") }));
      await repo().create(aProduct({ name: "Charlie", price: 700, heatLevel: 3, createdAt: new Date("2026-01-01") }));
      const order = async (sort: ProductQuery["sort"]) => (await repo().list({ ...everything, sort })).items.map((p) => p.name);
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

    test("update changes only the given fields and returns the product as stored", async () => {
      const product = aProduct({ compareAtPrice: 1499, description: "Original.", isFeatured: false });
      await repo().create(product);
      const updatedAt = new Date("2026-02-01T10:00:00Z");
      const updated = await repo().update(product.id, {
        name: "Renamed Sauce",
        price: 1299,
        compareAtPrice: null,
        images: ["https://images.example.com/new.jpg"],
        isFeatured: true,
        description: undefined,
        inventory: undefined,
        updatedAt,
      });
      const expected = {
        ...product,
        name: "Renamed Sauce",
        price: 1299,
        compareAtPrice: null,
        images: ["https://images.example.com/new.jpg"],
        isFeatured: true,
        updatedAt,
      };
      expect(updated).toEqual(expected);
      expect(updated?.description).toBe("Original.");
      expect(updated?.inventory).toBe(product.inventory);
      expect(await repo().findByIdOrSlug(product.id)).toEqual(expected);
    });

    test("update can move a product to a new sku and slug, or keep its own", async () => {
      const product = aProduct();
      await repo().create(product);
      const updatedAt = new Date("2026-02-01T10:00:00Z");
      const moved = await repo().update(product.id, { sku: "NEW-SKU", slug: "new-slug", updatedAt });
      expect(moved).toEqual({ ...product, sku: "NEW-SKU", slug: "new-slug", updatedAt });
      expect(await repo().findByIdOrSlug("new-slug")).toEqual({ ...product, sku: "NEW-SKU", slug: "new-slug", updatedAt });
      expect(await repo().findByIdOrSlug(product.slug)).toBeNull();
      const same = await repo().update(product.id, { sku: "NEW-SKU", slug: "new-slug", updatedAt });
      expect(same).toEqual({ ...product, sku: "NEW-SKU", slug: "new-slug", updatedAt });
    });

    test("update of an unknown product is null", async () => {
      await repo().create(aProduct());
      expect(await repo().update("no-such-product", { name: "Ghost", updatedAt: new Date("2026-02-01T10:00:00Z") })).toBeNull();
      expect(await repo().findByIdOrSlug("no-such-product")).toBeNull();
    });

    test("create with a taken sku is a product.conflict on sku, and nothing is written", async () => {
      const first = aProduct();
      await repo().create(first);
      const duplicate = aProduct({ sku: first.sku });
      const error = await domainErrorOf(repo().create(duplicate));
      expect(error.code).toBe("product.conflict");
      expect(error.details).toEqual({ field: "sku" });
      expect(await repo().findByIdOrSlug(duplicate.id)).toBeNull();
      expect(await repo().findByIdOrSlug(duplicate.slug)).toBeNull();
    });

    test("create with a taken slug is a product.conflict on slug, and nothing is written", async () => {
      const first = aProduct();
      await repo().create(first);
      const duplicate = aProduct({ slug: first.slug });
      const error = await domainErrorOf(repo().create(duplicate));
      expect(error.code).toBe("product.conflict");
      expect(error.details).toEqual({ field: "slug" });
      expect(await repo().findByIdOrSlug(duplicate.id)).toBeNull();
      expect(await repo().findByIdOrSlug(first.slug)).toEqual(first);
    });

    test("update to another product's slug or sku is a product.conflict, and the product is unchanged", async () => {
      const taken = aProduct();
      const product = aProduct();
      await repo().create(taken);
      await repo().create(product);
      const updatedAt = new Date("2026-02-01T10:00:00Z");

      const slugError = await domainErrorOf(repo().update(product.id, { name: "Renamed", slug: taken.slug, updatedAt }));
      expect(slugError.code).toBe("product.conflict");
      expect(slugError.details).toEqual({ field: "slug" });

      const skuError = await domainErrorOf(repo().update(product.id, { name: "Renamed", sku: taken.sku, updatedAt }));
      expect(skuError.code).toBe("product.conflict");
      expect(skuError.details).toEqual({ field: "sku" });

      expect(await repo().findByIdOrSlug(product.id)).toEqual(product);
      expect(await repo().findByIdOrSlug(taken.id)).toEqual(taken);
    });

    test("takeStock takes each line's quantity, down to exactly zero, and reports none short", async () => {
      const a = aProduct({ inventory: 5 });
      const b = aProduct({ inventory: 2 });
      for (const p of [a, b]) await repo().create(p);
      const at = new Date("2026-11-23T09:00:00Z");
      expect(
        await repo().takeStock(
          [
            { productId: a.id, quantity: 3 },
            { productId: b.id, quantity: 2 },
          ],
          at,
        ),
      ).toEqual([]);
      expect(await repo().findById(a.id)).toMatchObject({ inventory: 2, updatedAt: at });
      expect((await repo().findById(b.id))?.inventory).toBe(0);
    });

    test("takeStock names every line stock cannot cover, with what is there (0 for a product off sale), takes nothing from those and takes the others, for the caller to give up", async () => {
      const enough = aProduct({ inventory: 5 });
      const short = aProduct({ name: "Scarce", inventory: 1 });
      const offSale = aProduct({ name: "Retired", inventory: 9, isActive: false });
      for (const p of [enough, short, offSale]) await repo().create(p);
      const shortfalls = await target()
        .uow.transaction(async (tx) => {
          const found = await tx.products.takeStock(
            [
              { productId: enough.id, quantity: 1 },
              { productId: short.id, quantity: 2 },
              { productId: offSale.id, quantity: 1 },
            ],
            new Date(),
          );
          // The lines that fit were taken, the others not: the caller gives the transaction up when any is short.
          const left = await Promise.all([enough, short, offSale].map(async (p) => (await tx.products.findById(p.id))?.inventory));
          expect(left).toEqual([4, 1, 9]);
          throw Object.assign(new Error("short"), { found });
        })
        .catch((error: { found: unknown }) => error.found);
      expect(shortfalls).toEqual(
        expect.arrayContaining([
          { productId: short.id, productName: "Scarce", requested: 2, available: 1, onSale: true },
          { productId: offSale.id, productName: "Retired", requested: 1, available: 0, onSale: false },
        ]),
      );
      expect((shortfalls as unknown[]).length).toBe(2);
      expect((await repo().findById(short.id))?.inventory).toBe(1);
      expect((await repo().findById(enough.id))?.inventory).toBe(5);
    });

    describe("the back office's list (decisions §12)", () => {
      const names = async (query: Partial<AdminProductQuery>) => (await repo().listForAdmin({ ...firstPage, ...query })).items.map((p) => p.name);

      test("lists every product, off sale too, newest first, and counts them", async () => {
        await repo().create(aProduct({ name: "Old", createdAt: new Date("2026-01-01") }));
        await repo().create(aProduct({ name: "Retired", isActive: false, createdAt: new Date("2026-01-02") }));
        await repo().create(aProduct({ name: "New", createdAt: new Date("2026-01-03") }));
        expect(await repo().listForAdmin(firstPage)).toMatchObject({ total: 3 });
        expect(await names({})).toEqual(["New", "Retired", "Old"]);
      });

      test("q matches the name or the SKU, ignoring case, anywhere in it, and takes % and _ literally", async () => {
        await repo().create(aProduct({ name: "Ghost Pepper Fury", sku: "SF-GHO-011", createdAt: new Date("2026-01-03") }));
        await repo().create(aProduct({ name: "Verde", sku: "SF-VRD-003", description: "ghost of a chance", createdAt: new Date("2026-01-02") }));
        await repo().create(aProduct({ name: "100% Habanero", sku: "HAB_100", createdAt: new Date("2026-01-01") }));
        expect(await names({ q: "GHOST" })).toEqual(["Ghost Pepper Fury"]);
        expect(await names({ q: "vrd" })).toEqual(["Verde"]);
        expect(await names({ q: "sf-" })).toEqual(["Ghost Pepper Fury", "Verde"]);
        expect(await names({ q: "%" })).toEqual(["100% Habanero"]);
        expect(await names({ q: "_" })).toEqual(["100% Habanero"]);
        expect(await names({ q: "h_b" })).toEqual([]);
      });

      test("isActive keeps the products on sale, or those off sale", async () => {
        await repo().create(aProduct({ name: "On Sale" }));
        await repo().create(aProduct({ name: "Retired", isActive: false }));
        expect(await names({ isActive: true })).toEqual(["On Sale"]);
        expect(await names({ isActive: false })).toEqual(["Retired"]);
      });

      test("maxInventory keeps the products with that many units or fewer", async () => {
        for (const [name, inventory] of [
          ["Plenty", 6],
          ["At", 5],
          ["Few", 1],
          ["None", 0],
        ] as const)
          await repo().create(aProduct({ name, inventory }));
        expect((await names({ maxInventory: 5 })).sort()).toEqual(["At", "Few", "None"]);
        expect(await names({ maxInventory: 0 })).toEqual(["None"]);
      });

      test("the filters together keep what every one of them keeps, and the total counts that, whatever the page", async () => {
        const made = (name: string, fields: Parameters<typeof aProduct>[0]) => repo().create(aProduct({ name, ...fields }));
        await made("Reaper Low On", { sku: "R-1", inventory: 2 });
        await made("Reaper Low Off", { sku: "R-2", inventory: 2, isActive: false });
        await made("Reaper High Off", { sku: "R-3", inventory: 50, isActive: false });
        await made("Verde Low Off", { sku: "V-1", inventory: 1, isActive: false });
        expect(await names({ q: "reaper", isActive: false, maxInventory: 5 })).toEqual(["Reaper Low Off"]);
        expect((await names({ q: "reaper", maxInventory: 5 })).sort()).toEqual(["Reaper Low Off", "Reaper Low On"]);
        expect((await names({ isActive: false, maxInventory: 5 })).sort()).toEqual(["Reaper Low Off", "Verde Low Off"]);
        expect((await names({ q: "reaper", isActive: false })).sort()).toEqual(["Reaper High Off", "Reaper Low Off"]);
        const second = await repo().listForAdmin({ ...firstPage, isActive: false, page: 2, limit: 2 });
        expect([second.items.length, second.total]).toEqual([1, 3]);
        expect(await repo().listForAdmin({ ...firstPage, isActive: false, page: 5, limit: 2 })).toEqual({ items: [], total: 3 });
      });
    });

    test("findBySku finds a product, on sale or not, by its exact SKU", async () => {
      const product = aProduct({ sku: "SF-BBQ-001", isActive: false });
      await repo().create(product);
      expect(await repo().findBySku("SF-BBQ-001")).toEqual(product);
      expect(await repo().findBySku("sf-bbq-001")).toBeNull();
      expect(await repo().findBySku("SF-BBQ")).toBeNull();
    });

    test("adjustInventory adds or takes the delta and answers the product as it left it, off sale too", async () => {
      const product = aProduct({ inventory: 5, isActive: false });
      await repo().create(product);
      const at = new Date("2026-11-23T09:00:00Z");
      expect(await repo().adjustInventory(product.id, 7, at)).toEqual({ ...product, inventory: 12, updatedAt: at });
      expect(await repo().adjustInventory(product.id, -12, at)).toEqual({ ...product, inventory: 0, updatedAt: at });
      expect(await repo().findById(product.id)).toEqual({ ...product, inventory: 0, updatedAt: at });
    });

    test("adjustInventory changes nothing, and answers null, below zero, past MAX_INVENTORY, or for an unknown product", async () => {
      const product = aProduct({ inventory: 3 });
      await repo().create(product);
      const at = new Date("2026-11-23T09:00:00Z");
      expect(await repo().adjustInventory(product.id, -4, at)).toBeNull();
      expect(await repo().adjustInventory(product.id, MAX_INVENTORY - 2, at)).toBeNull();
      expect(await repo().findById(product.id)).toEqual(product);
      expect(await repo().adjustInventory(product.id, MAX_INVENTORY - 3, at)).toMatchObject({ inventory: MAX_INVENTORY });
      expect(await repo().adjustInventory("no-such-product", 1, at)).toBeNull();
    });

    test("adjustInventory of stock above MAX_INVENTORY (units given back by ended orders) takes units, down to zero, and adds none", async () => {
      const product = aProduct({ inventory: MAX_INVENTORY + 5 });
      await repo().create(product);
      const at = new Date("2026-11-23T09:00:00Z");
      expect(await repo().adjustInventory(product.id, 1, at)).toBeNull();
      expect(await repo().adjustInventory(product.id, -3, at)).toMatchObject({ inventory: MAX_INVENTORY + 2 });
      expect(await repo().adjustInventory(product.id, -(MAX_INVENTORY + 3), at)).toBeNull();
      expect(await repo().adjustInventory(product.id, -(MAX_INVENTORY + 2), at)).toMatchObject({ inventory: 0 });
    });

    test("update with an expected inventory writes only while the product holds exactly that; null otherwise, and nothing changes", async () => {
      const product = aProduct({ inventory: 5 });
      await repo().create(product);
      const updatedAt = new Date("2026-02-01T10:00:00Z");
      expect(await repo().update(product.id, { inventory: 20, name: "Restocked", updatedAt }, 4)).toBeNull();
      expect(await repo().findById(product.id)).toEqual(product);
      expect(await repo().update(product.id, { inventory: 20, name: "Restocked", updatedAt }, 5)).toEqual({
        ...product,
        inventory: 20,
        name: "Restocked",
        updatedAt,
      });
      expect(await repo().update("no-such-product", { inventory: 1, updatedAt }, 0)).toBeNull();
    });

    test("returnStock puts quantities back", async () => {
      const p = aProduct({ inventory: 0 });
      await repo().create(p);
      await repo().returnStock([{ productId: p.id, quantity: 4 }], new Date());
      expect((await repo().findById(p.id))?.inventory).toBe(4);
    });
  });
}
