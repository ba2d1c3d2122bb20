import { describe, expect, test } from "bun:test";
import { getProduct } from "../../src/application/catalog/get-product.ts";
import { type DemoCatalog, seedDemoCatalog, seedDemoCatalogIfEmpty } from "../../src/application/catalog/seed-demo-catalog.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aLocation, aProduct } from "../support/builders.ts";
import { uowWith } from "../support/faults.ts";

function demo(): DemoCatalog {
  const strip = ({ id: _id, isActive: _a, createdAt: _c, updatedAt: _u, ...rest }: ReturnType<typeof aProduct>) => rest;
  const { id: _id, ...location } = aLocation({ name: "Demo Shop", postalCode: "78701" });
  return { products: [strip(aProduct({ slug: "demo-one" })), strip(aProduct({ slug: "demo-two" }))], locations: [location] };
}

describe("catalog use cases", () => {
  test("a product is found by id or slug while it is active", async () => {
    const deps = createMemoryDeps();
    const product = aProduct();
    await deps.repos.products.create(product);
    expect((await getProduct(deps, product.id)).id).toBe(product.id);
    expect((await getProduct(deps, product.slug)).id).toBe(product.id);
  });

  test("an inactive or unknown product is not found", async () => {
    const deps = createMemoryDeps();
    const retired = aProduct({ isActive: false });
    await deps.repos.products.create(retired);
    await expect(getProduct(deps, retired.slug)).rejects.toMatchObject({ code: "product.not_found" });
    await expect(getProduct(deps, "never-made")).rejects.toMatchObject({ code: "product.not_found" });
  });

  test("seeding adds the demo catalog once; a second run adds nothing", async () => {
    const deps = createMemoryDeps();
    const catalog = demo();
    expect(await seedDemoCatalog(deps, catalog)).toEqual({ productsAdded: 2, locationsAdded: 1 });
    expect(await seedDemoCatalog(deps, catalog)).toEqual({ productsAdded: 0, locationsAdded: 0 });
    const listed = await deps.repos.products.list({ sort: "newest", page: 1, limit: 10 });
    expect(listed.items.map((p) => p.slug)).toEqual(["demo-one", "demo-two"]);
  });

  test("the start-up seed fills an empty shop, and leaves a shop that has a catalog alone", async () => {
    const empty = createMemoryDeps();
    expect(await seedDemoCatalogIfEmpty(empty, demo())).toEqual({ productsAdded: 2, locationsAdded: 1 });
    expect(await seedDemoCatalogIfEmpty(empty, demo())).toBeNull();

    const withLocationOnly = createMemoryDeps();
    await withLocationOnly.repos.locations.create(aLocation());
    expect(await seedDemoCatalogIfEmpty(withLocationOnly, demo())).toBeNull();
    expect((await withLocationOnly.repos.products.list({ sort: "newest", page: 1, limit: 10 })).total).toBe(0);
  });

  test("seeding is all or nothing: a failure part-way leaves no product behind", async () => {
    const deps = createMemoryDeps();
    const uow = uowWith(deps, (tx) => ({ locations: { ...tx.locations, create: () => Promise.reject(new Error("disk full")) } }));
    await expect(seedDemoCatalog({ ...deps, uow }, demo())).rejects.toThrow("disk full");
    expect((await deps.repos.products.list({ sort: "newest", page: 1, limit: 10 })).total).toBe(0);
  });
});
