import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { Client } from "pg";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { cancelOrder } from "../../src/application/orders/cancel-order.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import type { Repositories } from "../../src/application/ports/index.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import type { Product } from "../../src/domain/product.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { uowWith } from "../support/faults.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { auditEntries } from "../support/audit.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
let database: TestDatabase;
let deps: ReturnType<typeof createPgDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createPgDeps(database.db);
});
beforeEach(() => database.truncate());
afterAll(() => database.drop());

/** A shopper with a cart line for the product. */
async function shopperWith(product: Product, quantity = 1) {
  const user = aUser();
  await deps.repos.users.create(user);
  const line = await addToCart(deps, user.id, { productId: product.id, quantity }, NO_ORIGIN);
  return { user, line };
}

/**
 * An add to cart while another transaction holds what `hold` takes of the account, until the add
 * has answered. One that waited on the hold would be refused at the shop's 2 s lock limit.
 */
async function addToCartWhileHeld(userId: string, productId: string, hold: (tx: Repositories) => Promise<unknown>) {
  const [held, released] = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  const holder = deps.uow.transaction(async (tx) => {
    await hold(tx);
    held.resolve();
    await released.promise;
  });
  await held.promise;
  try {
    return await addToCart(deps, userId, { productId, quantity: 1 }, NO_ORIGIN);
  } finally {
    released.resolve();
    await holder;
  }
}

const checkout = (d: typeof deps, userId: string, lineIds: string[]) =>
  placeOrder(d, DEFAULT_ORDER_SETTINGS, userId, { cartItemIds: lineIds, shippingAddress: texas }, NO_ORIGIN);
const stockOf = async (id: string) => (await deps.repos.products.findById(id))!.inventory;
const orderCount = async () => Number((await sql<{ n: string }>`select count(*) as n from orders`.execute(database.db)).rows[0]!.n);

/** Everything a failed checkout must leave as it was: stock, cart lines, orders. */
async function snapshot(product: Product, userId: string) {
  return { stock: await stockOf(product.id), cart: await deps.repos.carts.lines(userId), orders: await orderCount() };
}

describe("checkout under concurrency (PostgreSQL)", () => {
  test("40 shoppers check out the last 5 units at once: exactly 5 orders, stock 0 and never below, 35 clean refusals with their carts intact", async () => {
    const sauce = aProduct({ inventory: 5 });
    await deps.repos.products.create(sauce);
    const shoppers = await Promise.all(Array.from({ length: 40 }, () => shopperWith(sauce)));
    const results = await Promise.allSettled(shoppers.map(({ user, line }) => checkout(deps, user.id, [line.id])));

    const placed = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(placed).toHaveLength(5);
    expect(refused).toHaveLength(35);
    for (const error of refused) expect(error).toMatchObject({ code: "inventory.insufficient", details: { productId: sauce.id, requested: 1, available: 0 } });
    expect(await stockOf(sauce.id)).toBe(0);
    expect(await orderCount()).toBe(5);
    const refusedShoppers = shoppers.filter((_, i) => results[i]!.status === "rejected");
    for (const { user, line } of refusedShoppers) expect((await deps.repos.carts.lines(user.id)).map((l) => [l.id, l.quantity])).toEqual([[line.id, 1]]);
  });

  test("over HTTP the same race is 5 answers of 200 and 35 clean 400s naming the product, never a 500", async () => {
    const t = createTestApp(deps);
    const sauce = aProduct({ inventory: 5 });
    await deps.repos.products.create(sauce);
    const shoppers = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const shopper = await signedInAs(t);
        expect((await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers })).status).toBe(200);
        return shopper;
      }),
    );
    const answers = await Promise.all(shoppers.map((s) => t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: s.headers })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(35);
    for (const a of refused)
      expect([a.status, a.body]).toEqual([400, { error: "Insufficient inventory", details: expect.objectContaining({ productId: sauce.id, available: 0 }) }]);
    expect(await stockOf(sauce.id)).toBe(0);
  });

  test("the same cart line checked out twice at once makes one order, and takes the stock once", async () => {
    const sauce = aProduct({ inventory: 10 });
    await deps.repos.products.create(sauce);
    const { user, line } = await shopperWith(sauce, 3);
    const results = await Promise.allSettled([checkout(deps, user.id, [line.id]), checkout(deps, user.id, [line.id])]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.flatMap((r) => (r.status === "rejected" ? [r.reason.code] : []))).toEqual(["cart.items_not_found"]);
    expect(await stockOf(sauce.id)).toBe(7);
    expect(await orderCount()).toBe(1);
  });
});

describe("the unpaid-order limit under concurrency (PostgreSQL, decisions §15)", () => {
  /** A customer (a new one unless given) with two unpaid orders already, and a cart line of each of `lines` further products. */
  async function customerNearTheLimit(lines: number, user = aUser()) {
    const products = Array.from({ length: lines + 2 }, () => aProduct({ inventory: 10 }));
    for (const p of products) await deps.repos.products.create(p);
    if (!(await deps.repos.users.findById(user.id))) await deps.repos.users.create(user);
    for (const p of products.slice(0, 2)) {
      const line = await addToCart(deps, user.id, { productId: p.id, quantity: 1 }, NO_ORIGIN);
      await checkout(deps, user.id, [line.id]);
    }
    const rest = products.slice(2);
    const cart = [];
    for (const p of rest) cart.push(await addToCart(deps, user.id, { productId: p.id, quantity: 1 }, NO_ORIGIN));
    return { user, products: rest, lines: cart };
  }
  const unpaidOf = async (userId: string) => (await deps.repos.orders.unpaidOf(userId, 100)).length;

  test("ten checkouts at once, each of its own cart line, by a customer with 2 unpaid orders make exactly one more order; nine are refused, taking nothing", async () => {
    const { user, products, lines } = await customerNearTheLimit(10);
    // A barrier: every checkout's transaction has begun before any of them holds the customer and counts.
    let arrived = 0;
    let allArrived = () => {};
    const together = new Promise<void>((resolve) => (allArrived = resolve));
    const gathered = uowWith(deps, (tx) => ({
      users: {
        ...tx.users,
        async holdForCheckout(id) {
          if (++arrived === lines.length) allArrived();
          await together;
          return tx.users.holdForCheckout(id);
        },
      },
    }));
    const results = await Promise.allSettled(lines.map((line) => checkout({ ...deps, uow: gathered }, user.id, [line.id])));

    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(refused.map((e) => e.code)).toEqual(Array(9).fill("order.too_many_unpaid"));
    expect(await unpaidOf(user.id)).toBe(3);
    expect((await Promise.all(products.map((p) => stockOf(p.id)))).sort((a, b) => a - b)).toEqual([9, ...Array(9).fill(10)]);
    expect(await deps.repos.carts.lines(user.id)).toHaveLength(9);
  });

  test("over HTTP, ten at once through both routes (POST /api/orders, POST /api/cart/checkout): one 200, nine 409", async () => {
    const t = createTestApp(deps);
    const shopper = await signedInAs(t);
    const { user, lines } = await customerNearTheLimit(10, (await deps.repos.users.findById(shopper.id))!);
    const { headers } = shopper;
    const answers = await Promise.all(
      lines.map((line, i) =>
        t.call("POST", i % 2 ? "/api/orders" : "/api/cart/checkout", { body: { cartItemIds: [line.id], shippingAddress: texas }, headers }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    for (const a of answers.filter((a) => a.status === 409)) expect(a.body.error).toBe("Pay or cancel your unpaid orders first");
    expect(await unpaidOf(user.id)).toBe(3);
  });

  test("a checkout holding the customer does not hold back the customer's other writes: an add to cart meanwhile goes through", async () => {
    const { user, products } = await customerNearTheLimit(1);
    const another = aProduct();
    await deps.repos.products.create(another);
    const added = await addToCartWhileHeld(user.id, another.id, async (tx) => expect(await tx.users.holdForCheckout(user.id)).toBe(true));
    expect(added).toMatchObject({ productId: another.id });
    expect((await deps.repos.carts.lines(user.id)).map((l) => l.productId).sort()).toEqual([products[0]!.id, another.id].sort());
  });
});

test("a sign-in or password change checking the account holds back none of its other writes: an add to cart meanwhile goes through (PostgreSQL)", async () => {
  const [sauce, another] = [aProduct(), aProduct()];
  for (const p of [sauce, another]) await deps.repos.products.create(p);
  const { user } = await shopperWith(sauce);
  // As sign-in and a password change do: the account locked while its password hash is compared.
  const added = await addToCartWhileHeld(user.id, another.id, async (tx) => expect((await tx.users.lock(user.id))?.id).toBe(user.id));
  expect(added).toMatchObject({ productId: another.id });
});

describe("cancelling an unpaid order (PostgreSQL, decisions §15)", () => {
  test("ten cancels of one order at once: one cancels it, nine are refused, and its stock comes back once", async () => {
    const sauce = aProduct({ inventory: 10 });
    await deps.repos.products.create(sauce);
    const { user, line } = await shopperWith(sauce, 3);
    const { orderId } = await checkout(deps, user.id, [line.id]);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => cancelOrder(deps, user.id, orderId, NO_ORIGIN)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.flatMap((r) => (r.status === "rejected" ? [r.reason.code] : []))).toEqual(Array(9).fill("order.not_cancellable"));
    expect(await stockOf(sauce.id)).toBe(10);
    expect((await auditEntries(deps.repos.audit, { action: "order.cancel" })).length).toBe(1);
  });
});

describe("a checkout that fails part-way leaves nothing behind (PostgreSQL)", () => {
  test("when the payment intent cannot be created: stock and cart exactly as before, the order cancelled", async () => {
    const sauce = aProduct({ inventory: 10 });
    await deps.repos.products.create(sauce);
    const { user, line } = await shopperWith(sauce, 4);
    const before = await snapshot(sauce, user.id);
    const failing = { ...deps, payments: { ...deps.payments, createIntent: () => Promise.reject(new Error("processor unreachable")) } };
    await expect(checkout(failing, user.id, [line.id])).rejects.toMatchObject({ code: "order.creation_failed" });
    expect(await snapshot(sauce, user.id)).toEqual({ ...before, orders: 1 });
    const [order] = (await deps.repos.orders.list({ skip: 0, take: null, sortOrder: "desc" })).orders;
    expect(order).toMatchObject({ status: "CANCELLED", paymentStatus: "PENDING" });
  });

  test("when the connection is killed mid-transaction, after the stock was taken: stock, cart and orders exactly as before, and the shop goes on", async () => {
    const sauce = aProduct({ inventory: 10 });
    await deps.repos.products.create(sauce);
    const { user, line } = await shopperWith(sauce, 2);
    const before = await snapshot(sauce, user.id);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Between taking the stock and writing the order, the transaction's own connection is terminated.
      const killing = uowWith(deps, (tx) => ({
        orders: {
          ...tx.orders,
          async create(order) {
            await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and state = 'idle in transaction'");
            return tx.orders.create(order);
          },
        },
      }));
      await expect(checkout({ ...deps, uow: killing }, user.id, [line.id])).rejects.toThrow();
    } finally {
      await admin.end();
    }
    expect(await snapshot(sauce, user.id)).toEqual(before);
    await checkout(deps, user.id, [line.id]);
    expect(await stockOf(sauce.id)).toBe(8);
  });
});
