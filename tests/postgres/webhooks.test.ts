import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { easypostWebhookVerifier } from "../../src/adapters/events/easypost.ts";
import { paypalWebhookVerifier } from "../../src/adapters/events/paypal.ts";
import { resendWebhookVerifier } from "../../src/adapters/events/resend.ts";
import { squareWebhookVerifier } from "../../src/adapters/events/square.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { systemClock } from "../../src/adapters/system.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { TEST_PUBLIC_URL, TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import { testCertificateSource } from "../support/paypal-certificates.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps, fakeRefundsOf } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { startStripeTestServer } from "../support/stripe-server.ts";
import { type Delivery, signedByEasyPost, signedByPayPal, signedByResend, signedBySquare, signedByStripe } from "../support/webhook-signers.ts";

const EASYPOST_SECRET = "easypost-secret";
const RESEND_SECRET = `whsec_${Buffer.from("resend-secret-for-postgres-tests").toString("base64")}`;
const SQUARE_KEY = "square-key";
const SQUARE_URL = `${TEST_PUBLIC_URL}/api/webhooks/square`;
const PAYPAL_WEBHOOK_ID = "WH-PG";
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
beforeEach(() => database.truncate());
afterAll(() => database.drop());

function shop() {
  return createTestApp(createPgDeps(database.db), {
    webhooks: {
      easypost: easypostWebhookVerifier(EASYPOST_SECRET),
      resend: resendWebhookVerifier(RESEND_SECRET),
      square: squareWebhookVerifier(SQUARE_KEY, SQUARE_URL),
      paypal: paypalWebhookVerifier({ webhookId: PAYPAL_WEBHOOK_ID, certificates: testCertificateSource() }, systemClock),
    },
  });
}
type Shop = ReturnType<typeof shop>;

async function anOrder(t: Shop) {
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await t.deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 2 }, headers: shopper.headers });
  const { orderId } = (await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers })).body as { orderId: string };
  const order = async () => (await t.deps.repos.orders.findById(orderId))!;
  return { orderId, order, total: (await order()).total, shopper };
}

const deliverTimes = (t: Shop, provider: string, delivery: Delivery, times = 10) =>
  Promise.all(Array.from({ length: times }, () => t.call("POST", `/api/webhooks/${provider}`, { body: delivery.body, headers: delivery.headers })));
const audits = async (action: string) =>
  (await sql<{ changes: Record<string, unknown> }>`select changes from audit_log where action = ${action}`.execute(database.db)).rows;

describe("each provider's event delivered 10 times at once: applied once, one audit row (PostgreSQL)", () => {
  test("Stripe, through its adapter on the Stripe test server: paid once, its 10 deliveries shuffled with other events", async () => {
    const stripe = await startStripeTestServer();
    try {
      const client = createStripeClient({ secretKey: stripe.secretKey, apiBase: stripe.url });
      const processor = createStripeGateway(client, silentLogger);
      const t = createTestApp({ ...createPgDeps(database.db), payments: processor, tax: processor });
      const [paid, declined] = [await anOrder(t), await anOrder(t)];
      const [paidIntent, declinedIntent] = [(await paid.order()).stripePaymentIntentId!, (await declined.order()).stripePaymentIntentId!];
      await client.paymentIntents.confirm(paidIntent, { payment_method: "pm_card_visa" });
      const success = stripe.event("payment_intent.succeeded", stripe.intents.get(paidIntent)!);
      const others = [
        stripe.event("payment_intent.payment_failed", { ...stripe.intents.get(declinedIntent)!, status: "requires_payment_method" }),
        stripe.event("customer.created", { id: "cus_1", object: "customer" }),
        stripe.event("payment_intent.payment_failed", { ...stripe.intents.get(paidIntent)!, status: "requires_payment_method" }),
      ];
      const events = [...Array.from({ length: 10 }, () => success), ...others].sort(() => Math.random() - 0.5);
      const deliveries = await Promise.all(events.map((event) => signedByStripe(event, TEST_WEBHOOK_SECRET)));
      const answers = await Promise.all(deliveries.map(({ body, headers }) => t.call("POST", "/api/webhooks/stripe", { body, headers })));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(await paid.order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
      expect(await declined.order()).toMatchObject({ status: "PENDING", paymentStatus: "FAILED" });
      const successes = (await audits("webhook.stripe")).filter((a) => a.changes.eventId === success.id);
      expect(successes).toHaveLength(1);
      expect(successes.filter((a) => !a.changes.ignored)).toHaveLength(1);
    } finally {
      stripe.close();
    }
  });

  test("EasyPost: delivered once", async () => {
    const t = shop();
    const { orderId, order } = await anOrder(t);
    await t.deps.repos.orders.update(orderId, { status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "EZ-PG-1", updatedAt: new Date() });
    const event = { id: "evt_ep_1", description: "tracker.updated", result: { tracking_code: "EZ-PG-1", status: "delivered" } };
    expect((await deliverTimes(t, "easypost", signedByEasyPost(event, EASYPOST_SECRET))).map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await order()).status).toBe("DELIVERED");
    expect(await audits("webhook.easypost")).toHaveLength(1);
  });

  test("Resend: the address suppressed once", async () => {
    const t = shop();
    const event = { type: "email.bounced", data: { email_id: "re_pg", to: ["bounce@example.com"] } };
    await deliverTimes(t, "resend", signedByResend(event, RESEND_SECRET, "msg_pg_bounce"));
    expect(await t.deps.repos.suppressions.has("bounce@example.com")).toBe(true);
    expect(await audits("webhook.resend")).toHaveLength(1);
  });

  test("Square: paid once", async () => {
    const t = shop();
    const { orderId, order, total } = await anOrder(t);
    const event = {
      type: "payment.updated",
      event_id: "sq-evt-1",
      data: { object: { payment: { id: "sq_1", status: "COMPLETED", reference_id: orderId, amount_money: { amount: total, currency: "USD" } } } },
    };
    await deliverTimes(t, "square", signedBySquare(event, SQUARE_KEY, SQUARE_URL));
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square" });
    expect(await audits("webhook.square")).toHaveLength(1);
  });

  test("PayPal: paid once", async () => {
    const t = shop();
    const { orderId, order, total } = await anOrder(t);
    const event = {
      id: "WH-PG-EVT-1",
      event_type: "PAYMENT.CAPTURE.COMPLETED",
      resource: { id: "CAP-1", custom_id: orderId, amount: { value: (total / 100).toFixed(2), currency_code: "USD" } },
    };
    await deliverTimes(t, "paypal", signedByPayPal(event, PAYPAL_WEBHOOK_ID));
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "paypal" });
    expect(await audits("webhook.paypal")).toHaveLength(1);
  });
});

test("Stripe and Square both report success for one order at once: it is paid once; the second word is flagged, and money Stripe took is sent back", async () => {
  const t = shop();
  for (let round = 0; round < 6; round++) {
    await database.truncate();
    const { orderId, order, total } = await anOrder(t);
    const intentId = (await order()).stripePaymentIntentId!;
    await t.deps.payments.confirmIntent(intentId, "pm_card_visa", `cross-${round}`);
    const stripe = await signedByStripe(
      {
        id: `evt_cross_${round}`,
        object: "event",
        type: "payment_intent.succeeded",
        data: { object: { id: intentId, object: "payment_intent", amount: total, amount_received: total, currency: "usd", metadata: { orderId } } },
      },
      TEST_WEBHOOK_SECRET,
    );
    const square = signedBySquare(
      {
        type: "payment.updated",
        event_id: `sq-cross-${round}`,
        data: { object: { payment: { id: "sq_cross", status: "COMPLETED", reference_id: orderId, amount_money: { amount: total, currency: "USD" } } } },
      },
      SQUARE_KEY,
      SQUARE_URL,
    );
    const answers = await Promise.all([
      t.call("POST", "/api/webhooks/stripe", { body: stripe.body, headers: stripe.headers }),
      t.call("POST", "/api/webhooks/square", { body: square.body, headers: square.headers }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const paid = await order();
    expect([paid.status, paid.paymentStatus]).toEqual(["CONFIRMED", "PAID"]);
    const words = [...(await audits("webhook.stripe")), ...(await audits("webhook.square"))];
    expect(words).toHaveLength(2);
    expect(words.filter((w) => !w.changes.flagged && !w.changes.ignored)).toHaveLength(1);
    const refunded = await fakeRefundsOf(database.db, intentId);
    if (paid.paidVia === "square") {
      // Square's word stops the Stripe intent, and finds it paid: whichever hears Stripe's payment first
      // (that stop, or Stripe's own word) flags it and sends the money back; the other finds it heard.
      const stops = await audits("payment.succeeded");
      const hearings = [...words, ...stops].filter((w) => w.changes.intentId === intentId);
      expect(hearings.filter((w) => w.changes.flagged === true).map((w) => w.changes.ignored)).toEqual([
        `paid again through stripe (${intentId}), after square (sq_cross): refunded`,
      ]);
      expect(stops).toHaveLength(1);
      expect(hearings.filter((w) => w.changes.flagged !== true).map((w) => w.changes.ignored)).toEqual([
        `paid again through stripe (${intentId}), after square (sq_cross): refunded; heard before, its refund recorded then`,
      ]);
      expect(refunded).toEqual([total]);
    } else {
      const flagged = words.filter((w) => w.changes.flagged === true).map((w) => w.changes.ignored);
      expect([paid.paidVia, paid.paidReference]).toEqual(["stripe", intentId]);
      expect(flagged).toEqual([`paid again through square (sq_cross), after stripe (${intentId}): not applied`]);
      expect(refunded).toEqual([]);
    }
  }
});

test("two bounces naming the same addresses in opposite orders, at once: both applied, neither deadlocks into a 500 (found by an attack)", async () => {
  const t = shop();
  const addresses = Array.from({ length: 20 }, (_, i) => `crossed-${String.fromCharCode(97 + i)}@example.com`);
  // Ten rounds: with five, the code before this order failed in two runs of three; with ten, in three of three.
  for (let round = 0; round < 10; round++) {
    const bounce = (to: string[], id: string) => signedByResend({ type: "email.bounced", data: { email_id: `re_${id}`, to } }, RESEND_SECRET, `msg_${id}`);
    const [forwards, backwards] = [bounce(addresses, `fwd_${round}`), bounce([...addresses].reverse(), `back_${round}`)];
    const answers = await Promise.all([forwards, backwards].map((d) => t.call("POST", "/api/webhooks/resend", { body: d.body, headers: d.headers })));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
  }
  for (const address of addresses) expect(await t.deps.repos.suppressions.has(address)).toBe(true);
});

test("a bounce that commits while its address's message is being marked sent: the message ends sent, and the worker is told it had been suppressed (its row read under the lock, not a snapshot from before the bounce)", async () => {
  const t = shop();
  const { outbox } = t.deps.repos;
  const now = new Date();
  await outbox.enqueue({ id: "mid-send", to: "bounced@example.com", subject: "Welcome", text: "Hi", html: null, createdAt: now });
  await outbox.claimDue(now, new Date(now.getTime() + 300_000), 10);
  // The bounce's transaction has marked the message suppressed and not committed yet when the send is recorded.
  const bounceHeld = Promise.withResolvers<void>();
  const commitBounce = Promise.withResolvers<void>();
  const bounce = t.deps.uow.transaction(async (tx) => {
    expect(await tx.outbox.markSuppressed({ to: "bounced@example.com" })).toBe(1);
    bounceHeld.resolve();
    await commitBounce.promise;
  });
  await bounceHeld.promise;
  const marking = t.deps.uow.transaction((tx) => tx.outbox.markSent("mid-send", new Date(), "re_mid_send"));
  // markSent waits for the bounce's row lock; a snapshot taken before the commit would say pending.
  await eventually(async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%mail_outbox%'`.execute(database.db);
    expect(rows[0]!.n).toBe(1);
  }, 5_000);
  commitBounce.resolve();
  await bounce;
  expect(await marking).toBe("suppressed");
  expect(await outbox.list()).toEqual([expect.objectContaining({ id: "mid-send", status: "sent", providerMessageId: "re_mid_send" })]);
});
