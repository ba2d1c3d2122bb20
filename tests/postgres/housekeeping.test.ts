import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { finishStrandedCheckouts } from "../../src/application/orders/finish-stranded-checkouts.ts";
import { settleAbandonedPayments } from "../../src/application/payments/settle-abandoned-payments.ts";
import type { Deps } from "../../src/application/ports/index.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { eventually } from "../support/eventually.ts";
import { aProduct, aUser } from "../support/builders.ts";
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

/** A placed order of 2 units (10 in stock) and its shopper. */
async function anOrder() {
  const user = aUser();
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await deps.repos.users.create(user);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, user.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
  const placed = await placeOrder(deps, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
  return { user, sauce, line, placed, stored: async () => (await deps.repos.orders.findById(placed.orderId))! };
}

/** Processor calls that wait until `count` of them have been made: every housekeeper has read its work before any applies it. */
function barrier(count: number) {
  let arrived = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async <T>(call: () => Promise<T>): Promise<T> => {
    if (++arrived >= count) open();
    await opened;
    return call();
  };
}

describe("two housekeepers at once (PostgreSQL, FOR UPDATE SKIP LOCKED)", () => {
  test("a payment attempt a crash left is settled once: one PAID order, one audit entry", async () => {
    const { placed, stored } = await anOrder();
    const intentId = (await stored()).stripePaymentIntentId!;
    await deps.payments.confirmIntent(intentId, "pm_card_visa", `confirm-${placed.orderId}-1-pm_card_visa`);
    const startedAt = new Date(Date.now() - 1_000);
    await deps.uow.transaction((tx) => tx.orders.update(placed.orderId, { paymentAttempts: 1, paymentStartedAt: startedAt, updatedAt: startedAt }));

    const together = barrier(2);
    const housekeeper: Deps = { ...deps, payments: { ...deps.payments, retrieveIntent: (id) => together(() => deps.payments.retrieveIntent(id)) } };
    const settled = await Promise.all([settleAbandonedPayments(housekeeper, 0), settleAbandonedPayments(housekeeper, 0)]);

    expect(settled.flat()).toEqual([placed.orderNumber]);
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null });
    expect(await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" })).toHaveLength(1);
  });

  /** A checkout whose process died after its commit, before it asked for its payment intent. */
  async function aStrandedCheckout() {
    const user = aUser();
    const sauce = aProduct({ price: 1299, inventory: 10 });
    await deps.repos.users.create(user);
    await deps.repos.products.create(sauce);
    const line = await addToCart(deps, user.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
    const dying = { ...deps, payments: { ...deps.payments, createIntent: () => new Promise<never>(() => {}) } };
    void placeOrder(dying, DEFAULT_ORDER_SETTINGS, user.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
    const [order] = await eventually(async () => {
      const { orders } = await deps.repos.orders.list({ userId: user.id, skip: 0, take: 1, sortOrder: "asc" });
      expect(orders).toHaveLength(1);
      return orders;
    });
    return {
      order: order!,
      stored: async () => (await deps.repos.orders.findById(order!.id))!,
      stock: async () => (await deps.repos.products.findById(sauce.id))!.inventory,
      cart: async () => (await deps.repos.carts.lines(user.id)).map((l) => l.quantity),
    };
  }

  test("a checkout a crash left without its intent is given it once: one intent made, stored once, one audit entry", async () => {
    const { order, stored } = await aStrandedCheckout();
    const together = barrier(2);
    const housekeeper: Deps = { ...deps, payments: { ...deps.payments, createIntent: (input) => together(() => deps.payments.createIntent(input)) } };
    const results = await Promise.all([finishStrandedCheckouts(housekeeper, 0), finishStrandedCheckouts(housekeeper, 0)]);
    expect(results.flatMap((r) => r.intentsStored)).toEqual([order.orderNumber]);
    const made = await database.db.selectFrom("fake_processor_intents").select("intent").execute();
    expect(made).toHaveLength(1);
    const intent = made[0]!.intent as { id: string; status: string };
    expect([(await stored()).stripePaymentIntentId, intent.status]).toEqual([intent.id, "requires_payment_method"]);
    expect((await auditEntries(deps.repos.audit, { entityId: order.id, action: "order.intent_recovered" })).map((entry) => entry.changes)).toEqual([
      { intentId: intent.id, recoveredBy: "housekeeping" },
    ]);
  });

  test("one whose intent the processor refuses is undone once: cancelled, its stock and its lines back once", async () => {
    const { order, stored, stock, cart } = await aStrandedCheckout();
    expect([await stock(), await cart()]).toEqual([8, []]);
    const together = barrier(2);
    const refused = () => Promise.reject(new DomainError("payment.intent_refused", "Payment processing failed"));
    const housekeeper: Deps = { ...deps, payments: { ...deps.payments, createIntent: () => together(refused) } };
    const results = await Promise.all([finishStrandedCheckouts(housekeeper, 0), finishStrandedCheckouts(housekeeper, 0)]);
    expect(results.flatMap((r) => r.undone)).toEqual([order.orderNumber]);
    expect((await stored()).status).toBe("CANCELLED");
    expect([await stock(), await cart()]).toEqual([10, [2]]);
    expect(await auditEntries(deps.repos.audit, { entityId: order.id, action: "order.status_update" })).toHaveLength(1);
  });
});
