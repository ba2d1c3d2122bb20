import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { adjustInventory } from "../../src/application/admin/adjust-inventory.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { updateProduct } from "../../src/application/catalog/manage-products.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import type { Product } from "../../src/domain/product.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { uowWith } from "../support/faults.ts";
import { openDatabase } from "../../src/adapters/db/database.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { auditEntries } from "../support/audit.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
let database: TestDatabase;
let deps: ReturnType<typeof createPgDeps>;
// Room for 20 checkouts held open inside their transactions at once, and the restock beside them.
let wideDb: Db;
let wide: ReturnType<typeof createPgDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createPgDeps(database.db);
  wideDb = openDatabase({ kind: "postgres", url: database.url, poolMax: 24 }).db;
  wide = createPgDeps(wideDb);
});
beforeEach(() => database.truncate());
afterAll(async () => {
  await wideDb.destroy();
  await database.drop();
});

const stockOf = async (id: string) => (await deps.repos.products.findById(id))!.inventory;
/** Units sold: every order line of the product (each checkout below orders one). */
const unitsOrdered = async (id: string) =>
  Number((await sql<{ n: string }>`select coalesce(sum(quantity), 0) as n from order_items where product_id = ${id}`.execute(database.db)).rows[0]!.n);

/** Shoppers with one unit of the product in their carts, ready to check out. */
async function shoppers(product: Product, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const user = aUser();
      await deps.repos.users.create(user);
      const line = await addToCart(deps, user.id, { productId: product.id, quantity: 1 }, NO_ORIGIN);
      return { userId: user.id, lineId: line.id };
    }),
  );
}

const checkout = ({ userId, lineId }: { userId: string; lineId: string }) =>
  placeOrder(deps, DEFAULT_ORDER_SETTINGS, userId, { cartItemIds: [lineId], shippingAddress: texas }, NO_ORIGIN);

/**
 * `count` checkouts of one unit each that all wait, inside their transactions, right before taking
 * the stock; once every one is there, `race` starts and they are let go together, so its statement
 * meets theirs on the product's row. How each ended, and how `race` did.
 */
async function raceCheckouts<T>(product: Product, count: number, race: () => Promise<T>) {
  const crowd = await shoppers(product, count);
  let arrived = 0;
  let allArrived = () => {};
  const gathered = new Promise<void>((resolve) => (allArrived = resolve));
  let letGo = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const uow = uowWith(wide, (tx) => ({
    products: {
      ...tx.products,
      async takeStock(lines, at) {
        if (++arrived === count) allArrived();
        await released;
        return tx.products.takeStock(lines, at);
      },
    },
  }));
  const checkouts = crowd.map(({ userId, lineId }) =>
    placeOrder({ ...wide, uow }, DEFAULT_ORDER_SETTINGS, userId, { cartItemIds: [lineId], shippingAddress: texas }, NO_ORIGIN),
  );
  await gathered;
  const raced = race();
  letGo();
  const [raceOutcome, ...outcomes] = await Promise.allSettled([raced, ...checkouts]);
  for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toMatchObject({ code: "inventory.insufficient" });
  return { raceOutcome: raceOutcome!, placed: outcomes.filter((o) => o.status === "fulfilled").length };
}

describe("inventory adjustments under concurrency (PostgreSQL)", () => {
  test("20 concurrent +1 adjustments over HTTP give +20 exactly, each audited with the stock it found", async () => {
    const t = createTestApp(deps);
    const staff = await signedInAs(t, "STAFF");
    const product = aProduct({ inventory: 7 });
    await deps.repos.products.create(product);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call("POST", `/api/admin/products/${product.id}/inventory`, { body: { delta: 1, reason: `Bottle ${i}` }, headers: staff.headers }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await stockOf(product.id)).toBe(27);
    // Each adjustment saw the one before it: the stocks before are 7 to 26, once each, and each after is its before + 1.
    const entries = await auditEntries(deps.repos.audit, { action: "product.inventory_adjust", entityId: product.id });
    const befores = entries.map((e) => e.changes.before as number).sort((a, b) => a - b);
    expect(befores).toEqual(Array.from({ length: 20 }, (_, i) => 7 + i));
    for (const e of entries) expect(e.changes.after).toBe((e.changes.before as number) + 1);
    expect(answers.map((a) => a.body.data.inventory).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 8 + i));
  });

  test("a +5 restock racing 20 checkouts of one unit, with 5 in stock: units ordered + stock left = 10 exactly, never below zero", async () => {
    const product = aProduct({ inventory: 5 });
    await deps.repos.products.create(product);
    const { raceOutcome, placed } = await raceCheckouts(product, 20, () =>
      adjustInventory(wide, SYSTEM_ACTOR, { id: product.id }, { delta: 5, reason: "Delivery" }, NO_ORIGIN),
    );
    expect(raceOutcome.status).toBe("fulfilled");
    const left = await stockOf(product.id);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(await unitsOrdered(product.id)).toBe(placed);
    expect(placed + left).toBe(10);
  });

  test("taking units (a negative delta) racing checkouts never takes the stock below zero: every unit is sold, taken, or still there", async () => {
    const product = aProduct({ inventory: 10 });
    await deps.repos.products.create(product);
    const { raceOutcome, placed } = await raceCheckouts(product, 10, () =>
      adjustInventory(wide, SYSTEM_ACTOR, { id: product.id }, { delta: -4, reason: "Broken in the warehouse" }, NO_ORIGIN),
    );
    if (raceOutcome.status === "rejected") expect(raceOutcome.reason).toMatchObject({ code: "inventory.insufficient" });
    const left = await stockOf(product.id);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(placed + (raceOutcome.status === "fulfilled" ? 4 : 0) + left).toBe(10);
  });

  test("a PUT of inventory with expectedInventory racing checkouts never wipes a sale out: units ordered + stock left is 10 when it landed, 5 when refused", async () => {
    const product = aProduct({ inventory: 5 });
    await deps.repos.products.create(product);
    const { raceOutcome, placed } = await raceCheckouts(product, 10, () =>
      updateProduct(wide, SYSTEM_ACTOR, product.id, { inventory: 10, expectedInventory: 5 }, NO_ORIGIN),
    );
    if (raceOutcome.status === "rejected") expect(raceOutcome.reason).toMatchObject({ code: "product.inventory_changed", details: { expectedInventory: 5 } });
    const left = await stockOf(product.id);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(placed + left).toBe(raceOutcome.status === "fulfilled" ? 10 : 5);
  });

  test("a PUT whose expectedInventory a sale made stale is 409 naming the current stock, and the sale stands", async () => {
    const t = createTestApp(deps);
    const staff = await signedInAs(t, "STAFF");
    const product = aProduct({ inventory: 5 });
    await deps.repos.products.create(product);
    const [shopper] = await shoppers(product, 1);
    await checkout(shopper!);
    const res = await t.call("PUT", `/api/products/${product.id}`, { body: { inventory: 10, expectedInventory: 5 }, headers: staff.headers });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "Inventory has changed: it is 4 now, not 5", details: { inventory: 4 } });
    expect(await stockOf(product.id)).toBe(4);
  });
});
