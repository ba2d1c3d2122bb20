import { describe, expect, test } from "bun:test";
import { getProduct } from "../../src/application/catalog/get-product.ts";
import { updateProduct } from "../../src/application/catalog/manage-products.ts";
import { type DemoCatalog, seedDemoCatalog, seedDemoCatalogIfEmpty } from "../../src/application/catalog/seed-demo-catalog.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import { aLocation, aProduct } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { uowWith } from "../support/faults.ts";
import { auditEntries } from "../support/audit.ts";

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

const staff: Actor = { userId: "staff-1", role: "STAFF", permissions: new Set(DEFAULT_ROLE_PERMISSIONS.STAFF) };

async function shopWith(...products: ReturnType<typeof aProduct>[]) {
  const deps = createMemoryDeps();
  for (const p of products) await deps.repos.products.create(p);
  return deps;
}

describe("setting inventory outright needs expectedInventory (decisions §12)", () => {
  test("with expectedInventory equal to the stored value, the inventory is set, and the audit entry shows both", async () => {
    const product = aProduct({ inventory: 5 });
    const deps = await shopWith(product);
    const updated = await updateProduct(deps, staff, product.id, { inventory: 20, expectedInventory: 5 }, NO_ORIGIN);
    expect(updated.inventory).toBe(20);
    const [entry] = await auditEntries(deps.repos.audit, { action: "product.update" });
    expect(entry?.changes).toEqual({ inventory: 20, expectedInventory: 5 });
  });

  test("with another expectedInventory (a sale came first), nothing changes and the conflict names the current value", async () => {
    const product = aProduct({ inventory: 4, name: "Before" });
    const deps = await shopWith(product);
    const error = await domainErrorOf(updateProduct(deps, staff, product.id, { name: "After", inventory: 20, expectedInventory: 5 }, NO_ORIGIN));
    expect(error.code).toBe("product.inventory_changed");
    expect(error.message).toBe("Inventory has changed: it is 4 now, not 5");
    expect(error.details).toEqual({ productId: product.id, expectedInventory: 5, inventory: 4 });
    expect(deps.state.products.get(product.id)).toEqual(product);
    expect(await auditEntries(deps.repos.audit, { action: "product.update" })).toEqual([]);
  });

  test("inventory without expectedInventory, and expectedInventory without inventory, are invalid input naming expectedInventory", async () => {
    const product = aProduct({ inventory: 5 });
    const deps = await shopWith(product);
    for (const patch of [{ inventory: 20 }, { expectedInventory: 5 }, { name: "Renamed", expectedInventory: 5 }]) {
      const error = await domainErrorOf(updateProduct(deps, staff, product.id, patch, NO_ORIGIN));
      expect(error.code).toBe("invalid_input");
      expect(((error.details?.issues ?? []) as { path: string }[]).map((i) => i.path)).toEqual(["expectedInventory"]);
    }
    expect(deps.state.products.get(product.id)).toEqual(product);
  });

  test("a caller without products:write is refused before the fields are judged", async () => {
    const product = aProduct({ inventory: 5 });
    const deps = await shopWith(product);
    const customer: Actor = { userId: "customer-1", role: "CUSTOMER", permissions: new Set() };
    expect((await domainErrorOf(updateProduct(deps, customer, product.id, { inventory: 20 }, NO_ORIGIN))).code).toBe("forbidden");
  });

  test("an unknown product is still product.not_found, with or without expectedInventory", async () => {
    const deps = await shopWith();
    for (const patch of [{ inventory: 1, expectedInventory: 0 }, { name: "Ghost" }])
      expect((await domainErrorOf(updateProduct(deps, staff, "z12345678901234567890123", patch, NO_ORIGIN))).code).toBe("product.not_found");
  });
});
