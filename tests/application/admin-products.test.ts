import { describe, expect, test } from "bun:test";
import { adjustInventory } from "../../src/application/admin/adjust-inventory.ts";
import { listAdminProducts } from "../../src/application/admin/list-products.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import { aProduct } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { uowWith } from "../support/faults.ts";
import { auditEntries } from "../support/audit.ts";

const actorOf = (role: "STAFF" | "CUSTOMER"): Actor => ({ userId: `${role.toLowerCase()}-1`, role, permissions: new Set(DEFAULT_ROLE_PERMISSIONS[role]) });
const staff = actorOf("STAFF");
const customer = actorOf("CUSTOMER");
const origin = { ipAddress: "203.0.113.9", userAgent: "back office" };
const firstPage = { page: 1, limit: 20 };

async function shopWith(...products: ReturnType<typeof aProduct>[]) {
  const deps = createMemoryDeps();
  for (const p of products) await deps.repos.products.create(p);
  return deps;
}

describe("the back office's product list (products:read)", () => {
  test("lists every product, off sale too, and needs products:read", async () => {
    const deps = await shopWith(aProduct({ name: "On Sale" }), aProduct({ name: "Retired", isActive: false }));
    const listed = await listAdminProducts(deps, staff, firstPage, 5);
    expect(listed.items.map((p) => p.name).sort()).toEqual(["On Sale", "Retired"]);
    expect(listed.total).toBe(2);
    expect((await domainErrorOf(listAdminProducts(deps, customer, firstPage, 5))).code).toBe("forbidden");
  });

  test("lowStock keeps the products at or under the shop's threshold (LOW_STOCK_THRESHOLD)", async () => {
    const deps = await shopWith(aProduct({ name: "Six", inventory: 6 }), aProduct({ name: "Five", inventory: 5 }), aProduct({ name: "Two", inventory: 2 }));
    const low = async (threshold: number) =>
      (await listAdminProducts(deps, staff, { ...firstPage, lowStock: true }, threshold)).items.map((p) => p.name).sort();
    expect(await low(5)).toEqual(["Five", "Two"]);
    expect(await low(2)).toEqual(["Two"]);
    expect(await low(6)).toEqual(["Five", "Six", "Two"]);
  });
});

describe("inventory adjustment (products:write)", () => {
  const restock = { delta: 5, reason: "Delivery from the co-packer" };

  test("adds the delta, answers the product as it left it, and records who, why, before and after in the audit log", async () => {
    const product = aProduct({ inventory: 3 });
    const deps = await shopWith(product);
    deps.clock.advance(60_000);
    const { product: adjusted, before } = await adjustInventory(deps, staff, { id: product.id }, restock, origin);
    expect(adjusted).toEqual({ ...product, inventory: 8, updatedAt: deps.clock.now() });
    expect(before).toBe(3);
    expect(deps.state.products.get(product.id)?.inventory).toBe(8);
    const [entry] = await auditEntries(deps.repos.audit, { action: "product.inventory_adjust" });
    expect(entry).toMatchObject({
      userId: staff.userId,
      entityType: "product",
      entityId: product.id,
      changes: { delta: 5, reason: "Delivery from the co-packer", before: 3, after: 8 },
      ipAddress: "203.0.113.9",
      userAgent: "back office",
    });
  });

  test("takes stock down to exactly zero; below zero is Insufficient inventory naming the product and what is there, and nothing changes", async () => {
    const product = aProduct({ name: "Scarce", inventory: 3 });
    const deps = await shopWith(product);
    expect((await adjustInventory(deps, staff, { id: product.id }, { delta: -3, reason: "Broken bottles" }, NO_ORIGIN)).product.inventory).toBe(0);
    const error = await domainErrorOf(adjustInventory(deps, staff, { id: product.id }, { delta: -1, reason: "Broken bottles" }, NO_ORIGIN));
    expect([error.code, error.message]).toEqual(["inventory.insufficient", "Insufficient inventory"]);
    expect(error.details).toEqual({ productId: product.id, productName: "Scarce", requested: 1, available: 0 });
    expect(deps.state.products.get(product.id)?.inventory).toBe(0);
    expect(await auditEntries(deps.repos.audit, { action: "product.inventory_adjust" })).toHaveLength(1);
  });

  test("a take judged on the stock just before a delivery landed is tried again on what the delivery left; one still refused is Insufficient inventory, never 'past 1,000,000' (found by an attack)", async () => {
    const product = aProduct({ name: "Scarce", inventory: 0 });
    const deps = await shopWith(product);
    // The take's update finds 0 units; a delivery of 2 lands before the stock is read again.
    let deliveries = 1;
    const uow = uowWith(deps, (tx) => ({
      products: {
        ...tx.products,
        adjustInventory: async (id: string, delta: number, at: Date) => {
          const judged = await tx.products.adjustInventory(id, delta, at);
          if (!judged && deliveries-- > 0) await tx.products.adjustInventory(id, 2, at);
          return judged;
        },
      },
    }));
    const taken = await adjustInventory({ ...deps, uow }, staff, { id: product.id }, { delta: -1, reason: "Broken bottle" }, NO_ORIGIN);
    expect([taken.before, taken.product.inventory]).toEqual([2, 1]);

    // A take that does not fit even after the delivery: too few units, named as such.
    deliveries = 1;
    const error = await domainErrorOf(adjustInventory({ ...deps, uow }, staff, { id: product.id }, { delta: -5, reason: "Stock count" }, NO_ORIGIN));
    expect([error.code, error.details]).toEqual(["inventory.insufficient", { productId: product.id, productName: "Scarce", requested: 5, available: 3 }]);
  });

  test("the CLI names the product by SKU, as the system actor; an unknown product is product.not_found", async () => {
    const product = aProduct({ sku: "SF-BBQ-001", inventory: 10 });
    const deps = await shopWith(product);
    const { product: adjusted } = await adjustInventory(deps, SYSTEM_ACTOR, { sku: "SF-BBQ-001" }, { delta: -4, reason: "Stock count" }, NO_ORIGIN);
    expect(adjusted.inventory).toBe(6);
    const [entry] = await auditEntries(deps.repos.audit, { action: "product.inventory_adjust" });
    expect(entry).toMatchObject({ userId: null, entityId: product.id, changes: { delta: -4, before: 10, after: 6 } });
    expect((await domainErrorOf(adjustInventory(deps, SYSTEM_ACTOR, { sku: "SF-NOPE" }, restock, NO_ORIGIN))).code).toBe("product.not_found");
    expect((await domainErrorOf(adjustInventory(deps, staff, { id: "z12345678901234567890123" }, restock, NO_ORIGIN))).code).toBe("product.not_found");
    // Typed fullwidth, as a Japanese keyboard gives it, it is the same SKU, as the shop keeps SKUs.
    expect((await adjustInventory(deps, SYSTEM_ACTOR, { sku: " ＳＦ-ＢＢＱ-００１ " }, restock, NO_ORIGIN)).product.id).toBe(product.id);
  });

  test.each([
    [{ delta: 0, reason: "Nothing" }, "delta"],
    [{ delta: 1.5, reason: "Half a bottle" }, "delta"],
    [{ delta: 1_000_001, reason: "Too many" }, "delta"],
    [{ delta: -1_000_001, reason: "Too many" }, "delta"],
    [{ delta: 1, reason: "" }, "reason"],
    [{ delta: 1, reason: "   " }, "reason"],
    [{ delta: 1, reason: "x".repeat(201) }, "reason"],
  ])("%j is invalid input naming %s, and changes nothing", async (input, field) => {
    const product = aProduct({ inventory: 10 });
    const deps = await shopWith(product);
    const error = await domainErrorOf(adjustInventory(deps, SYSTEM_ACTOR, { id: product.id }, input, NO_ORIGIN));
    expect(error.code).toBe("invalid_input");
    expect(((error.details?.issues ?? []) as { path: string }[]).map((i) => i.path)).toEqual([field]);
    expect(deps.state.products.get(product.id)?.inventory).toBe(10);
  });

  test("a reason of 200 characters is kept, trimmed", async () => {
    const product = aProduct();
    const deps = await shopWith(product);
    await adjustInventory(deps, staff, { id: product.id }, { delta: 1, reason: ` ${"x".repeat(200)} ` }, NO_ORIGIN);
    const [entry] = await auditEntries(deps.repos.audit, { action: "product.inventory_adjust" });
    expect(entry?.changes.reason).toBe("x".repeat(200));
  });

  test("adding past the most staff may stock (1,000,000) is invalid input naming delta and what the product holds", async () => {
    const product = aProduct({ inventory: 999_999 });
    const deps = await shopWith(product);
    const error = await domainErrorOf(adjustInventory(deps, staff, { id: product.id }, { delta: 2, reason: "Typo" }, NO_ORIGIN));
    expect(error.code).toBe("invalid_input");
    expect(error.details?.issues).toEqual([{ path: "delta", message: "would add to the inventory past 1000000 (it holds 999999)" }]);
  });

  test("stock above 1,000,000 (an ended order gave its units back to a full shelf) can still be taken from (found by an attack)", async () => {
    const product = aProduct({ inventory: 1_000_005 });
    const deps = await shopWith(product);
    const taken = await adjustInventory(deps, staff, { id: product.id }, { delta: -3, reason: "Count" }, NO_ORIGIN);
    expect([taken.before, taken.product.inventory]).toEqual([1_000_005, 1_000_002]);
    const error = await domainErrorOf(adjustInventory(deps, staff, { id: product.id }, { delta: 1, reason: "More" }, NO_ORIGIN));
    expect(error.details?.issues).toEqual([{ path: "delta", message: "would add to the inventory past 1000000 (it holds 1000002)" }]);
  });

  test("needs products:write; a customer changes nothing", async () => {
    const product = aProduct({ inventory: 10 });
    const deps = await shopWith(product);
    expect((await domainErrorOf(adjustInventory(deps, customer, { id: product.id }, restock, NO_ORIGIN))).code).toBe("forbidden");
    expect(deps.state.products.get(product.id)?.inventory).toBe(10);
  });

  test("the audit entry lands with the change or not at all: a failure to record it leaves the stock as it was", async () => {
    const product = aProduct({ inventory: 10 });
    const deps = await shopWith(product);
    const uow = uowWith(deps, (tx) => ({ audit: { ...tx.audit, record: () => Promise.reject(new Error("disk full")) } }));
    await expect(adjustInventory({ ...deps, uow }, staff, { id: product.id }, restock, NO_ORIGIN)).rejects.toThrow("disk full");
    expect(deps.state.products.get(product.id)?.inventory).toBe(10);
  });
});
