import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import Stripe from "stripe";
import type { Deps } from "../../src/application/ports/index.ts";
import { PAYMENT_WAITERS_PER_ORDER } from "../../src/domain/payment.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { createMemoryFakeProcessor } from "../../src/adapters/memory/deps.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
let database: TestDatabase;
let stripe: StripeTestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  stripe = await startStripeTestServer();
});
beforeEach(() => database.truncate());
afterAll(async () => {
  stripe.close();
  await database.drop();
});

/** The whole app on PostgreSQL, paying through the Stripe adapter on the test server (or the given processor). */
function shop(
  processor: Pick<Deps, "payments" | "tax">["payments"] & Deps["tax"] = createStripeGateway(
    createStripeClient({ secretKey: stripe.secretKey, apiBase: stripe.url }),
    silentLogger,
  ),
) {
  return createTestApp({ ...createPgDeps(database.db), payments: processor, tax: processor });
}

type Shop = ReturnType<typeof shop>;

async function anOrder(t: Shop, quantity = 2) {
  const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 50 });
  await t.deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  const added = await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity }, headers: shopper.headers });
  expect(added.status).toBe(200);
  const placed = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers });
  expect(placed.status).toBe(200);
  const order = async () => (await t.call("GET", `/api/orders/${placed.body.orderId}`, { headers: shopper.headers })).body;
  const pay = (paymentMethodId: string, headers: Record<string, string> = {}) =>
    t.call("POST", "/api/payment", { body: { orderId: placed.body.orderId, paymentMethodId }, headers: { ...shopper.headers, ...headers } });
  return { sauce, shopper, orderId: placed.body.orderId as string, intentId: (await order()).stripePaymentIntentId as string, order, pay, placed: placed.body };
}

async function deliver(t: Shop, event: object) {
  const payload = JSON.stringify(event);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: TEST_WEBHOOK_SECRET });
  return t.call("POST", "/api/webhooks/stripe", { body: payload, headers: { "content-type": "application/json", "stripe-signature": signature } });
}

const auditCount = async (action: string, entityId: string) =>
  Number((await sql<{ n: string }>`select count(*) as n from audit_log where action = ${action} and entity_id = ${entityId}`.execute(database.db)).rows[0]!.n);

describe("payments on PostgreSQL, through the Stripe adapter", () => {
  test("20 payments of one order at once are serialized: the processor confirms once, one 200 with success; the four that wait their turn find it paid (400), the rest are told to try again (409)", async () => {
    const t = shop();
    const { orderId, pay, order } = await anOrder(t);
    const confirmationsBefore = stripe.ran("/confirm");
    // The first to mark its attempt reaches Stripe while the others wait their turn (some 2 s each,
    // counted in pauses, so a loaded machine only lengthens it), and is let go at once.
    const held = stripe.holdNext("/confirm");
    const sent = Promise.all(Array.from({ length: 20 }, () => pay("pm_card_visa")));
    await held.ran;
    held.release();
    const answers = await sent;
    expect(stripe.ran("/confirm") - confirmationsBefore).toBe(1);
    expect(answers.filter((a) => a.status === 200 && a.body.success === true)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.error}`);
    const paid = refused.filter((answer) => answer === "400 Order has already been paid");
    const busy = refused.filter((answer) => answer === "409 A payment of this order is being processed; try again shortly");
    // Those that read the order once it was paid find it paid at once; of those that found the first
    // under way, PAYMENT_WAITERS_PER_ORDER wait (one instance here), the others are 409 at once.
    expect(paid.length + busy.length).toBe(19);
    expect(paid.length).toBeGreaterThanOrEqual(PAYMENT_WAITERS_PER_ORDER);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect(await auditCount("payment.succeeded", orderId)).toBe(1);
  });

  test("3-D Secure: requires_action leaves the order PENDING; the later payment_intent.succeeded confirms it", async () => {
    const t = shop();
    const { pay, order, intentId } = await anOrder(t);
    const answer = await pay("pm_card_threeDSecure2Required");
    expect(answer.body).toMatchObject({ success: false, paymentIntent: { id: intentId, status: "requires_action" } });
    expect(await order()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });
    const settled = stripe.completeAction(intentId, true);
    expect((await deliver(t, stripe.event("payment_intent.succeeded", settled))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("a webhook that arrives before the payment call returns pays the order; the payment then finds it paid: one PAID order, one confirmation", async () => {
    const t = shop();
    const { orderId, pay, order, intentId } = await anOrder(t);
    const confirmationsBefore = stripe.ran("/confirm");
    const held = stripe.holdNext("/confirm");
    const paying = pay("pm_card_visa");
    await held.ran;
    // Nothing waits on the order while the payment waits on Stripe: the webhook is applied at once.
    expect((await deliver(t, stripe.event("payment_intent.succeeded", stripe.intents.get(intentId)!))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    held.release();
    const paid = await paying;
    expect([paid.status, paid.body.success, paid.body.order]).toEqual([200, true, expect.objectContaining({ status: "CONFIRMED", paymentStatus: "PAID" })]);
    expect(stripe.ran("/confirm") - confirmationsBefore).toBe(1);
    expect(await auditCount("webhook.stripe", orderId)).toBe(1);
    const payment = await sql<{
      changes: { ignored?: string };
    }>`select changes from audit_log where action = 'payment.succeeded' and entity_id = ${orderId}`.execute(database.db);
    expect(payment.rows.map((r) => r.changes.ignored)).toEqual(["payment is already PAID"]);
  });

  test("a Stripe slower than the pool's patience takes no connection: the rest of the shop answers meanwhile", async () => {
    const t = shop();
    const orders = await Promise.all(Array.from({ length: 12 }, () => anOrder(t)));
    const holds = orders.map(() => stripe.holdNext("/confirm"));
    const paying = orders.map((o) => o.pay("pm_card_visa"));
    await Promise.all(holds.map((h) => h.ran));
    // Twelve payments wait on Stripe with a pool of ten connections: reads and writes still go through.
    expect((await t.call("GET", "/api/health")).status).toBe(200);
    expect((await orders[0]!.order()).status).toBe("PENDING");
    expect((await orders[0]!.pay("pm_card_visa")).status).toBe(409);
    for (const hold of holds) hold.release();
    expect((await Promise.all(paying)).map((a) => a.status)).toEqual(orders.map(() => 200));
  });

  test("a payment call after a webhook already paid the order is 400 and confirms nothing", async () => {
    const t = shop();
    const { pay, order, intentId } = await anOrder(t);
    await createStripeClient({ secretKey: stripe.secretKey, apiBase: stripe.url }).paymentIntents.confirm(intentId, { payment_method: "pm_card_visa" });
    await deliver(t, stripe.event("payment_intent.succeeded", stripe.intents.get(intentId)!));
    const confirmationsBefore = stripe.ran("/confirm");
    expect(await pay("pm_card_visa")).toMatchObject({ status: 400, body: { error: "Order has already been paid" } });
    expect(stripe.ran("/confirm")).toBe(confirmationsBefore);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("a repeat with the same Idempotency-Key while the first is still with Stripe is 409; after it, a replay", async () => {
    const t = shop();
    const { pay } = await anOrder(t);
    const held = stripe.holdNext("/confirm");
    const first = pay("pm_card_visa", { "idempotency-key": "pay-once" });
    await held.ran;
    const second = await pay("pm_card_visa", { "idempotency-key": "pay-once" });
    expect([second.status, second.body.error]).toEqual([409, "A request with this Idempotency-Key is still being processed"]);
    held.release();
    const done = await first;
    const replay = await pay("pm_card_visa", { "idempotency-key": "pay-once" });
    expect([replay.status, replay.body, replay.headers.get("idempotent-replayed")]).toEqual([200, done.body, "true"]);
  });
});

describe("the whole path over HTTP: add to cart, check out, pay with pm_card_visa, the webhook", () => {
  async function wholePath(t: Shop, succeededEvent: (intentId: string, orderId: string) => object) {
    const { orderId, intentId, pay, order, sauce, placed } = await anOrder(t, 3);
    // 3 × 12.99 = 38.97, $6.99 shipping, Texas 6.25 %: 2.44.
    expect(placed.amount).toBe(48.4);
    const paid = await pay("pm_card_visa");
    expect(paid.body).toMatchObject({
      success: true,
      paymentIntent: { id: intentId, status: "succeeded" },
      order: { status: "CONFIRMED", paymentStatus: "PAID" },
    });
    expect((await deliver(t, succeededEvent(intentId, orderId))).status).toBe(200);
    expect(await order()).toMatchObject({
      status: "CONFIRMED",
      paymentStatus: "PAID",
      total: 48.4,
      items: [expect.objectContaining({ productId: sauce.id, quantity: 3 })],
    });
    expect((await t.call("GET", `/api/products/${sauce.id}`)).body.data.inventory).toBe(47);
    expect(await auditCount("webhook.stripe", orderId)).toBe(1);
  }

  test("against the Stripe adapter on the test server", async () => {
    await wholePath(shop(), (intentId) => stripe.event("payment_intent.succeeded", stripe.intents.get(intentId)!));
  });

  test("against the built-in fake processor", async () => {
    const fake = createMemoryFakeProcessor();
    await wholePath(shop(fake), (intentId, orderId) => {
      const intent = fake.intents.get(intentId)!;
      return {
        id: `evt_${intentId}`,
        object: "event",
        type: "payment_intent.succeeded",
        data: {
          object: {
            id: intent.id,
            object: "payment_intent",
            amount: intent.amount,
            amount_received: intent.amount,
            currency: intent.currency,
            metadata: { orderId },
          },
        },
      };
    });
  });
});
