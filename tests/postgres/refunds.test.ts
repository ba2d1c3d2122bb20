import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import Stripe from "stripe";
import { type Db, openDatabase } from "../../src/adapters/db/database.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { createFixedClock } from "../../src/adapters/memory/deps.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { REFUND_RETRY_MS } from "../../src/domain/refund.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
let database: TestDatabase;
let stripe: StripeTestServer;
const pools: Db[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  stripe = await startStripeTestServer();
});
beforeEach(() => database.truncate());
afterEach(async () => {
  for (const db of pools.splice(0)) await db.destroy();
});
afterAll(async () => {
  stripe.close();
  await database.drop();
});

/** The whole app on PostgreSQL with a pool of `poolMax` connections of its own, paying and refunding through the Stripe adapter on the test server. */
function shop(poolMax = 10) {
  const { db } = openDatabase({ kind: "postgres", url: database.url, poolMax });
  pools.push(db);
  const gateway = createStripeGateway(createStripeClient({ secretKey: stripe.secretKey, apiBase: stripe.url }), silentLogger);
  return createTestApp({ ...createPgDeps(db), payments: gateway, tax: gateway });
}
type Shop = ReturnType<typeof shop>;

async function anOrder(t: Shop) {
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await t.deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers });
  const placed = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers });
  expect(placed.status).toBe(200);
  const orderId: string = placed.body.orderId;
  const pay = () => t.call("POST", "/api/payment", { body: { orderId, paymentMethodId: "pm_card_visa" }, headers: shopper.headers });
  return { orderId, pay, intentId: (await t.deps.repos.orders.findById(orderId))!.stripePaymentIntentId! };
}

async function aPaidOrder(t: Shop) {
  const order = await anOrder(t);
  expect((await order.pay()).body).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
  return order;
}

const moveAs = (t: Shop, who: { headers: Record<string, string> }, orderId: string, status: string) =>
  t.call("PUT", `/api/orders/${orderId}/status`, { body: { status }, headers: who.headers });

const refundRows = async (orderId: string) =>
  (
    await sql<{
      idempotency_key: string;
      confirmed: boolean;
    }>`select idempotency_key, confirmed_at is not null as confirmed from refunds where order_id = ${orderId}`.execute(database.db)
  ).rows;

const auditCount = async (action: string, entityId: string) =>
  Number((await sql<{ n: string }>`select count(*) as n from audit_log where action = ${action} and entity_id = ${entityId}`.execute(database.db)).rows[0]!.n);

describe("refunds on PostgreSQL, through the Stripe adapter: no connection or lock waits on the processor", () => {
  test("a refund held at Stripe while 20 other orders are paid and moved, on a pool of one connection: none of them waits on it", async () => {
    const t = shop(1);
    const [admin, staff] = [await signedInAs(t, "ADMIN"), await signedInAs(t, "STAFF")];
    const refunded = await aPaidOrder(t);
    const others = [];
    for (let i = 0; i < 20; i++) others.push(await anOrder(t));
    const refundsBefore = stripe.ran("/refunds");

    const held = stripe.holdNext("/refunds");
    const cancelling = moveAs(t, admin, refunded.orderId, "CANCELLED");
    await held.ran;
    try {
      const paid = await Promise.all(others.map((o) => o.pay()));
      expect(paid.map((a) => [a.status, a.body.order?.paymentStatus])).toEqual(others.map(() => [200, "PAID"]));
      const moved = await Promise.all(others.map((o) => moveAs(t, staff, o.orderId, "PROCESSING")));
      expect(moved.map((a) => [a.status, a.body.status])).toEqual(others.map(() => [200, "PROCESSING"]));
      // The order being refunded has moved already; its refund is due while Stripe holds the answer.
      expect((await t.call("GET", `/api/orders/${refunded.orderId}`, { headers: admin.headers })).body).toMatchObject({
        status: "CANCELLED",
        paymentStatus: "PAID",
      });
      expect(await refundRows(refunded.orderId)).toEqual([{ idempotency_key: `refund-${refunded.orderId}`, confirmed: false }]);
    } finally {
      held.release();
    }
    const answer = await cancelling;
    expect([answer.status, answer.body.status, answer.body.paymentStatus]).toEqual([200, "CANCELLED", "REFUNDED"]);
    expect(stripe.ran("/refunds") - refundsBefore).toBe(1);
    expect(await refundRows(refunded.orderId)).toEqual([{ idempotency_key: `refund-${refunded.orderId}`, confirmed: true }]);
  }, 30_000);

  test("two staff ending one order at once: the second is refused at once, not queued behind the first one's refund; Stripe refunds once", async () => {
    const t = shop();
    const [first, second] = [await signedInAs(t, "ADMIN"), await signedInAs(t, "ADMIN")];
    const { orderId } = await aPaidOrder(t);
    const refundsBefore = stripe.ran("/refunds");
    const held = stripe.holdNext("/refunds");
    const cancelling = moveAs(t, first, orderId, "CANCELLED");
    await held.ran;
    const refunding = await moveAs(t, second, orderId, "REFUNDED");
    held.release();
    expect([refunding.status, refunding.body.error]).toEqual([400, "An order cannot move from CANCELLED to REFUNDED; allowed: none: it is final"]);
    expect((await cancelling).body).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(stripe.ran("/refunds") - refundsBefore).toBe(1);
    expect(await refundRows(orderId)).toHaveLength(1);
  }, 30_000);

  test("ten staff ending one paid order at the same instant: one move, one refund at Stripe, one refund recorded", async () => {
    const t = shop();
    const admins = await Promise.all(Array.from({ length: 10 }, () => signedInAs(t, "ADMIN")));
    const { orderId } = await aPaidOrder(t);
    const refundsBefore = stripe.ran("/refunds");
    const answers = await Promise.all(admins.map((a, i) => moveAs(t, a, orderId, i % 2 ? "REFUNDED" : "CANCELLED")));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(9);
    expect(stripe.ran("/refunds") - refundsBefore).toBe(1);
    expect(await refundRows(orderId)).toEqual([{ idempotency_key: `refund-${orderId}`, confirmed: true }]);
  }, 30_000);

  test("Stripe's charge.refunded arriving before the refund's answer is applied at once; the answer then changes nothing more", async () => {
    const t = shop();
    const admin = await signedInAs(t, "ADMIN");
    const { orderId, intentId } = await aPaidOrder(t);
    const held = stripe.holdNext("/refunds");
    const cancelling = moveAs(t, admin, orderId, "CANCELLED");
    await held.ran;
    const charge = stripe.charges.get(stripe.intents.get(intentId)!.latest_charge)!;
    const event = stripe.event("charge.refunded", { ...charge, refunded: true, amount_refunded: charge.amount });
    const payload = JSON.stringify(event);
    const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: TEST_WEBHOOK_SECRET });
    const delivered = await t.call("POST", "/api/webhooks/stripe", {
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": signature },
    });
    expect(delivered.status).toBe(200);
    expect(await t.deps.repos.orders.findById(orderId)).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    held.release();
    expect((await cancelling).body).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(await refundRows(orderId)).toEqual([{ idempotency_key: `refund-${orderId}`, confirmed: true }]);
  }, 30_000);

  test("a refund Stripe made but that failed (a card closed since) is not taken for money back: the payment stays PAID, the refund due with Stripe's reason for staff, and no refund audited (found by a review)", async () => {
    const t = shop();
    const admin = await signedInAs(t, "ADMIN");
    const { orderId } = await aPaidOrder(t);
    stripe.refundNext("failed", "expired_or_canceled_card");
    const moved = await moveAs(t, admin, orderId, "CANCELLED");
    expect([moved.status, moved.body.status, moved.body.paymentStatus]).toEqual([200, "CANCELLED", "PAID"]);
    const [due] = (
      await sql<{
        confirmed: boolean;
        last_error: string;
      }>`select confirmed_at is not null as confirmed, last_error from refunds where order_id = ${orderId}`.execute(database.db)
    ).rows;
    expect(due).toEqual({
      confirmed: false,
      last_error: expect.stringMatching(/^Payment processing failed: Stripe's refund re_\w+ is failed, expired_or_canceled_card$/),
    });
    expect(await auditCount("payment.refunded", orderId)).toBe(0);
  });

  test("a refund Stripe failed stays due (the move answered 200, its payment still PAID); two instances' housekeeping at once ask for it once, under the same key, and settle it once", async () => {
    const t = shop();
    const admin = await signedInAs(t, "ADMIN");
    const { orderId } = await aPaidOrder(t);
    stripe.failNext(1 + 2, 503);
    const moved = await moveAs(t, admin, orderId, "CANCELLED");
    expect([moved.status, moved.body.status, moved.body.paymentStatus]).toEqual([200, "CANCELLED", "PAID"]);
    expect(await refundRows(orderId)).toEqual([{ idempotency_key: `refund-${orderId}`, confirmed: false }]);

    const later = createFixedClock(new Date(Date.now() + REFUND_RETRY_MS));
    const [one, two] = [0, 1].map(() => createHousekeeping({ ...t.deps, clock: later }, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }));
    const asked = stripe.calls.length;
    const held = stripe.holdNext("/refunds");
    const first = one!.runOnce();
    await held.ran;
    expect(await two!.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 0 });
    held.release();
    expect(await first).toMatchObject({ refundsMade: 1, refundsDue: 0 });
    expect(stripe.calls.slice(asked).map((c) => [c.path, c.idempotencyKey])).toEqual([["/v1/refunds", `refund-${orderId}`]]);
    expect(await refundRows(orderId)).toEqual([{ idempotency_key: `refund-${orderId}`, confirmed: true }]);
    expect(await t.deps.repos.orders.findById(orderId)).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(await auditCount("payment.refunded", orderId)).toBe(1);
  }, 30_000);
});
