import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { settleAbandonedPayments } from "../../src/application/orders/settle-abandoned-payments.ts";
import type { Deps } from "../../src/application/ports/index.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

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
  const placed = await placeOrder(deps, "SF", user.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
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
    expect(await deps.repos.audit.list({ entityId: placed.orderId, action: "payment.succeeded" })).toHaveLength(1);
  });
});
