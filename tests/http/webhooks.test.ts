import { beforeEach, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { easypostWebhookVerifier } from "../../src/adapters/events/easypost.ts";
import { paypalWebhookVerifier } from "../../src/adapters/events/paypal.ts";
import { resendWebhookVerifier } from "../../src/adapters/events/resend.ts";
import { squareWebhookVerifier } from "../../src/adapters/events/square.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { INTENT_STOP_LEASE_MS } from "../../src/domain/payment.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, TEST_PUBLIC_URL, TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import { eventually } from "../support/eventually.ts";
import {
  PAYPAL_EC_CERT,
  PAYPAL_EC_KEY,
  PAYPAL_EXPIRED_CERT,
  PAYPAL_TEST_CERT,
  PAYPAL_TEST_CERT_URL,
  type TestCertificateSource,
  testCertificateSource,
} from "../support/paypal-certificates.ts";
import { type Delivery, signedByEasyPost, signedByPayPal, signedByResend, signedBySquare, signedByStripe } from "../support/webhook-signers.ts";
import { auditEntries } from "../support/audit.ts";

const EASYPOST_SECRET = "easypost-webhook-secret-ﬁ"; // a ligature NFKD turns into "fi"
const RESEND_SECRET = `whsec_${Buffer.from("resend-signing-secret-for-tests").toString("base64")}`;
const SQUARE_KEY = "square-signature-key";
const SQUARE_URL = `${TEST_PUBLIC_URL}/api/webhooks/square`;
const PAYPAL_WEBHOOK_ID = "WH-TEST-1";
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

let t: TestApp;
/** PayPal's certificate host, as the tests stand in for it: what it serves and every fetch. */
let certificates: TestCertificateSource;
beforeEach(async () => {
  const deps = createMemoryDeps();
  certificates = testCertificateSource();
  t = createTestApp(deps, {
    webhooks: {
      easypost: easypostWebhookVerifier(EASYPOST_SECRET),
      resend: resendWebhookVerifier(RESEND_SECRET),
      square: squareWebhookVerifier(SQUARE_KEY, SQUARE_URL),
      paypal: paypalWebhookVerifier({ webhookId: PAYPAL_WEBHOOK_ID, certificates }, deps.clock),
    },
  });
});

/** Signed as PayPal signs, at the shop's (fixed) time, for its webhook, with the tests' certificate unless told otherwise. */
const signedForPayPal = (event: object | string, options: Parameters<typeof signedByPayPal>[2] = {}) =>
  signedByPayPal(event, PAYPAL_WEBHOOK_ID, { at: t.deps.clock.now(), ...options });

const deliver = (provider: string, { body, headers }: Delivery) => t.call("POST", `/api/webhooks/${provider}`, { body, headers });

async function anOrder() {
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await t.deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 2 }, headers: shopper.headers });
  const { orderId } = (await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers })).body;
  const order = async () => (await t.deps.repos.orders.findById(orderId))!;
  return { orderId, order, total: (await order()).total, sauce };
}

const auditsOf = (provider: string) => auditEntries(t.deps.repos.audit, { action: `webhook.${provider}` });

describe("Stripe", () => {
  const signed = (event: object | null, { secret = TEST_WEBHOOK_SECRET, timestamp }: { secret?: string; timestamp?: number } = {}) =>
    signedByStripe(event as object, secret, timestamp);
  const succeeded = (intentId: string, orderId: string, amount = 3296, id = "evt_paid") => ({
    id,
    object: "event",
    type: "payment_intent.succeeded",
    data: { object: { id: intentId, object: "payment_intent", amount, amount_received: amount, currency: "usd", metadata: { orderId } } },
  });

  test("a signed payment_intent.succeeded pays the order once, however often it is delivered", async () => {
    const { orderId, order, total } = await anOrder();
    const { stripePaymentIntentId } = await order();
    for (let i = 0; i < 3; i++)
      expect(await deliver("stripe", await signed(succeeded(stripePaymentIntentId!, orderId, total)))).toMatchObject({ status: 200, body: { received: true } });
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect(await auditsOf("stripe")).toHaveLength(1);
  });

  test("the audit entry of a delivery holds the address and user agent it came from, as every payment change's does (found by a spec audit)", async () => {
    const { orderId, order, total } = await anOrder();
    const delivery = await signed(succeeded((await order()).stripePaymentIntentId!, orderId, total));
    const headers = { ...delivery.headers, "x-forwarded-for": "54.187.174.169", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" };
    expect((await deliver("stripe", { ...delivery, headers })).status).toBe(200);
    expect(await auditsOf("stripe")).toEqual([
      expect.objectContaining({ entityId: orderId, userId: null, ipAddress: "54.187.174.169", userAgent: "Stripe/1.0 (+https://stripe.com/docs/webhooks)" }),
    ]);
  });

  test("an event is about its intent: one naming another order in its metadata moves the order holding the intent, never copies the intent onto the other", async () => {
    const named = await anOrder();
    const holder = await anOrder();
    const { stripePaymentIntentId, total } = await holder.order();
    expect(await deliver("stripe", await signed(succeeded(stripePaymentIntentId!, named.orderId, total)))).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(await holder.order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", stripePaymentIntentId });
    expect(await named.order()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });
  });

  test("a refund that failed after it was made (refund.failed) leaves the order as it is, and is recorded on it, flagged, and said at error for staff; told again, once", async () => {
    const lines: Array<Record<string, unknown>> = [];
    t = createTestApp({ ...t.deps, logger: createJsonLogger("info", (line) => void lines.push(JSON.parse(line))) } as typeof t.deps);
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    await deliver("stripe", await signed(succeeded(intent, orderId, total)));
    await deliver(
      "stripe",
      await signed({
        id: "evt_refunded",
        type: "charge.refunded",
        data: { object: { payment_intent: intent, amount: total, amount_refunded: total, refunded: true } },
      }),
    );
    const refunded = await order();
    expect(refunded).toMatchObject({ status: "REFUNDED", paymentStatus: "REFUNDED" });
    const failed = {
      id: "evt_refund_failed",
      type: "refund.failed",
      data: { object: { id: "re_1", object: "refund", amount: total, payment_intent: intent, status: "failed", failure_reason: "expired_or_canceled_card" } },
    };
    for (let i = 0; i < 2; i++) expect(await deliver("stripe", await signed(failed))).toMatchObject({ status: 200, body: { received: true } });
    expect(await order()).toEqual(refunded);
    const entries = (await auditsOf("stripe")).filter((entry) => entry.changes.type === "refund.failed");
    expect(entries).toEqual([
      expect.objectContaining({
        entityType: "order",
        entityId: orderId,
        changes: expect.objectContaining({
          event: "refund_failed",
          intentId: intent,
          refundId: "re_1",
          amount: total,
          reason: "expired_or_canceled_card",
          flagged: true,
        }),
      }),
    ]);
    expect(lines.filter((line) => line.event === "refund.failed")).toEqual([
      expect.objectContaining({ level: "error", orderId, intentId: intent, refundId: "re_1", amount: total, reason: "expired_or_canceled_card" }),
    ]);
  });

  test("a failed refund of a late payment (an intent the order never took, refunded at once) is recorded on that order, found through the refund (found by a review)", async () => {
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    await deliver("stripe", await signed(succeeded(intent, orderId, total)));
    // A second intent of the same order paid too: the shop sends that money back.
    const late = await t.deps.processor.createIntent({ amount: total, currency: "usd", metadata: { orderId }, idempotencyKey: "second-tab" });
    await deliver("stripe", await signed(succeeded(late.id, orderId, total, "evt_paid_late")));
    expect(await t.deps.repos.refunds.listOfOrder(orderId)).toEqual([expect.objectContaining({ intentId: late.id, reason: "late_payment" })]);
    const failed = {
      id: "evt_late_refund_failed",
      type: "refund.failed",
      data: { object: { id: "re_late", amount: total, payment_intent: late.id, failure_reason: "unknown" } },
    };
    expect((await deliver("stripe", await signed(failed))).status).toBe(200);
    expect((await auditsOf("stripe")).filter((entry) => entry.changes.type === "refund.failed")).toEqual([
      expect.objectContaining({ entityType: "order", entityId: orderId, changes: expect.objectContaining({ refundId: "re_late", flagged: true }) }),
    ]);
  });

  test("a failed refund of a payment no order of ours holds is recorded and flagged, found: false; one whose parts are not as Stripe sends them is 400", async () => {
    const failed = (object: object) => ({ id: `evt_${crypto.randomUUID()}`, type: "refund.failed", data: { object } });
    expect((await deliver("stripe", await signed(failed({ id: "re_2", amount: 500, payment_intent: "pi_unknown", failure_reason: null })))).status).toBe(200);
    // A refund of a charge made without an intent (found by an attack: it was dropped unrecorded).
    expect((await deliver("stripe", await signed(failed({ id: "re_5", amount: 700, payment_intent: null, failure_reason: "unknown" })))).status).toBe(200);
    const recorded = await auditsOf("stripe");
    expect(recorded).toHaveLength(2);
    expect(recorded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ entityType: "webhook", entityId: null, changes: expect.objectContaining({ refundId: "re_2", found: false, flagged: true }) }),
        expect.objectContaining({
          entityType: "webhook",
          entityId: null,
          changes: expect.objectContaining({ refundId: "re_5", intentId: null, found: false, flagged: true }),
        }),
      ]),
    );
    for (const object of [
      { id: "re_3", amount: "500", payment_intent: "pi_1" },
      { id: "re_4", amount: 500, payment_intent: "pi_1", failure_reason: "a\u0000b" },
    ])
      expect(await deliver("stripe", await signed(failed(object)))).toMatchObject({ status: 400, body: { error: "Malformed event" } });
  });

  test("a bad or stale signature is 400 and changes nothing; a type the shop does not act on is 200", async () => {
    const { orderId } = await anOrder();
    const event = succeeded("pi_x", orderId);
    expect(await deliver("stripe", await signed(event, { secret: "whsec_someone_else" }))).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    expect(await deliver("stripe", await signed(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }))).toMatchObject({
      status: 400,
      body: { error: "Invalid signature" },
    });
    // A signature dated ahead would stay replayable until its time: refused as well.
    expect(await deliver("stripe", await signed(event, { timestamp: Math.floor(Date.now() / 1000) + 3600 }))).toMatchObject({
      status: 400,
      body: { error: "Invalid signature" },
    });
    expect((await deliver("stripe", { body: JSON.stringify(event), headers: { "content-type": "application/json" } })).status).toBe(400);
    expect(
      await deliver("stripe", await signed({ id: "evt_other", object: "event", type: "customer.created", data: { object: { id: "cus_1" } } })),
    ).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(await deliver("stripe", await signed({ id: "evt_bare", object: "event", type: "customer.created" }))).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(t.deps.state.webhookEvents.size).toBe(0);
  });

  test("a signed event whose parts are not as Stripe sends them is 400 Malformed event, never a 500", async () => {
    const { orderId } = await anOrder();
    for (const event of [
      null,
      { id: "evt_no_data", type: "payment_intent.succeeded" },
      { id: "evt_null_object", type: "payment_intent.succeeded", data: { object: null } },
      { type: "payment_intent.succeeded", data: { object: {} } },
      { id: "evt_nul\u0000", type: "payment_intent.succeeded", data: { object: {} } },
      succeeded("pi_nul\u0000", orderId),
      { id: "evt_refund", type: "charge.refunded", data: { object: { payment_intent: "pi_1", amount: "3296", amount_refunded: 3296, refunded: "yes" } } },
    ]) {
      expect(await deliver("stripe", await signed(event))).toMatchObject({ status: 400, body: { error: "Malformed event" } });
    }
    expect(t.deps.state.webhookEvents.size).toBe(0);
  });

  test("without STRIPE_WEBHOOK_SECRET the webhook is 503", async () => {
    const off = createTestApp(createMemoryDeps(), { stripeWebhookSecret: null });
    const { body, headers } = await signed(succeeded("pi_x", "o"));
    expect(await off.call("POST", "/api/webhooks/stripe", { body, headers })).toMatchObject({
      status: 503,
      body: { error: "Stripe webhooks are not configured" },
    });
  });

  test("the body is taken raw whatever its type (no 415), and at most 1 MB (413)", async () => {
    const { body, headers } = await signed({ id: "evt_text", object: "event", type: "customer.created", data: { object: {} } });
    expect((await deliver("stripe", { body, headers: { ...headers, "content-type": "text/plain" } })).status).toBe(200);
    const huge = "x".repeat(1024 * 1024 + 1);
    expect((await deliver("stripe", { body: huge, headers })).status).toBe(413);
  });
});

describe("EasyPost", () => {
  const tracker = (code: string, status: string, id = `evt_${crypto.randomUUID()}`) => ({
    id,
    object: "Event",
    description: "tracker.updated",
    result: { object: "Tracker", tracking_code: code, status },
  });

  test("a signed tracker.updated with delivered moves the SHIPPED order with that tracking number to DELIVERED; another status, or delivered again, is recorded only, with why", async () => {
    const { orderId, order } = await anOrder();
    await t.deps.repos.orders.update(orderId, { status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "EZ1000000001", updatedAt: new Date() });
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "in_transit"), EASYPOST_SECRET))).status).toBe(200);
    expect((await order()).status).toBe("SHIPPED");
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "delivered"), EASYPOST_SECRET))).body).toEqual({ received: true });
    expect((await order()).status).toBe("DELIVERED");
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "delivered"), EASYPOST_SECRET))).status).toBe(200);
    const audits = (await auditsOf("easypost")).map(({ changes: { carrierStatus, from, to, ignored } }) => ({ carrierStatus, from, to, ignored }));
    expect(audits).toHaveLength(3);
    expect(audits).toEqual(
      expect.arrayContaining([
        { carrierStatus: "in_transit", from: "SHIPPED", to: "SHIPPED", ignored: "only delivered moves an order" },
        { carrierStatus: "delivered", from: "SHIPPED", to: "DELIVERED", ignored: undefined },
        { carrierStatus: "delivered", from: "DELIVERED", to: "DELIVERED", ignored: "the order is DELIVERED, not SHIPPED" },
      ]),
    );
  });

  test("a tracking number typed as the label prints it, or in small letters, is found by the carrier's own (found by an attack)", async () => {
    const staff = await signedInAs(t, "STAFF", "staff@example.com");
    const shipped = [];
    for (const typed of ["1Z 999 AA1 01 2345 6784", "1z999aa10123456785"]) {
      const { orderId, order } = await anOrder();
      await t.deps.repos.orders.update(orderId, { status: "PROCESSING", paymentStatus: "PAID", updatedAt: new Date() });
      const move = await t.call("PUT", `/api/orders/${orderId}/status`, { body: { status: "SHIPPED", trackingNumber: typed }, headers: staff.headers });
      expect(move.status).toBe(200);
      shipped.push({ order, trackingNumber: move.body.trackingNumber });
    }
    expect(shipped.map((s) => s.trackingNumber)).toEqual(["1Z999AA10123456784", "1Z999AA10123456785"]);
    for (const code of ["1Z999AA10123456784", "1z999aa10123456785"])
      expect((await deliver("easypost", signedByEasyPost(tracker(code, "delivered"), EASYPOST_SECRET))).status).toBe(200);
    for (const { order } of shipped) expect((await order()).status).toBe("DELIVERED");
  });

  test("orders sent in one parcel share its tracking number: delivered moves each of them, with an audit entry each", async () => {
    const [first, second] = [await anOrder(), await anOrder()];
    for (const { orderId } of [first, second])
      await t.deps.repos.orders.update(orderId, { status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "EZ-PARCEL", updatedAt: new Date() });
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ-PARCEL", "delivered"), EASYPOST_SECRET))).status).toBe(200);
    expect([(await first.order()).status, (await second.order()).status]).toEqual(["DELIVERED", "DELIVERED"]);
    expect((await auditsOf("easypost")).map((a) => a.entityId).sort()).toEqual([first.orderId, second.orderId].sort());
  });

  test("wrongly signed, signed with the un-normalized secret, or unsigned: 400, nothing recorded; unknown codes and other events are acknowledged", async () => {
    const event = tracker("EZ1", "delivered");
    const unsigned = { body: JSON.stringify(event), headers: { "content-type": "application/json" } };
    const unnormalized = `hmac-sha256-hex=${createHmac("sha256", EASYPOST_SECRET).update(unsigned.body).digest("hex")}`;
    for (const delivery of [
      signedByEasyPost(event, "someone else"),
      { ...unsigned, headers: { ...unsigned.headers, "x-hmac-signature": unnormalized } },
      { ...unsigned, headers: { ...unsigned.headers, "x-hmac-signature": "hmac-sha256-hex=00" } },
      unsigned,
    ]) {
      expect(await deliver("easypost", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect(t.deps.state.webhookEvents.size).toBe(0);
    expect((await deliver("easypost", signedByEasyPost(tracker("NOT-OURS", "delivered"), EASYPOST_SECRET))).status).toBe(200);
    expect((await deliver("easypost", signedByEasyPost({ id: "evt_x", description: "batch.created", result: {} }, EASYPOST_SECRET))).status).toBe(200);
  });
});

describe("Resend", () => {
  test("a bounce puts its addresses on the suppression list and their pending mail is never sent; a complaint too", async () => {
    const shopper = await signedInAs(t);
    const pending = (await t.deps.repos.outbox.list()).find((m) => m.to === shopper.email)!;
    const bounced = {
      type: "email.bounced",
      created_at: new Date().toISOString(),
      data: { email_id: "re_1", to: [shopper.email.toUpperCase()], subject: "Welcome" },
    };
    expect((await deliver("resend", signedByResend(bounced, RESEND_SECRET, "msg_bounce_1"))).status).toBe(200);
    expect(await t.deps.repos.suppressions.has(shopper.email)).toBe(true);
    expect((await t.deps.repos.outbox.list()).find((m) => m.id === pending.id)?.status).toBe("suppressed");
    const complained = { type: "email.complained", data: { email_id: "re_2", to: ["grumpy@example.com"] } };
    expect((await deliver("resend", signedByResend(complained, RESEND_SECRET, "msg_complaint_1"))).status).toBe(200);
    expect(await t.deps.repos.suppressions.has("grumpy@example.com")).toBe(true);
  });

  test("email.delivered marks the message the provider knows by that id; an id it does not know is audited as not found", async () => {
    await t.deps.repos.outbox.enqueue({ id: "m1", to: "ada@example.com", subject: "Hi", text: "Hi", html: null, createdAt: new Date() });
    await t.deps.repos.outbox.markSent("m1", new Date(), "re_delivered_1");
    expect(
      (
        await deliver(
          "resend",
          signedByResend({ type: "email.delivered", data: { email_id: "re_delivered_1", to: ["ada@example.com"] } }, RESEND_SECRET, "msg_delivered_1"),
        )
      ).status,
    ).toBe(200);
    expect((await t.deps.repos.outbox.list())[0]?.deliveredAt).toBeInstanceOf(Date);
    const unknown = { type: "email.delivered", data: { email_id: "re_nope", to: ["ada@example.com"] } };
    expect((await deliver("resend", signedByResend(unknown, RESEND_SECRET, "msg_delivered_2"))).status).toBe(200);
    expect((await auditsOf("resend")).map((a) => [a.entityId, a.changes])).toEqual(
      expect.arrayContaining([
        ["re_delivered_1", { eventId: "msg_delivered_1", type: "email.delivered", delivered: true }],
        ["re_nope", { eventId: "msg_delivered_2", type: "email.delivered", found: false }],
      ]),
    );
  });

  test("wrongly signed, unsigned or stale (over 5 minutes): 400, nothing recorded", async () => {
    const event = { type: "email.bounced", data: { to: ["victim@example.com"] } };
    const stale = signedByResend(event, RESEND_SECRET, "msg_old", new Date(Date.now() - 10 * 60_000));
    const forged = signedByResend(event, `whsec_${Buffer.from("another secret").toString("base64")}`, "msg_forged");
    const unsigned = { body: JSON.stringify(event), headers: { "content-type": "application/json" } };
    for (const delivery of [stale, forged, unsigned])
      expect(await deliver("resend", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    expect(await t.deps.repos.suppressions.has("victim@example.com")).toBe(false);
  });
});

describe("Square", () => {
  const completed = (orderId: string, amount: number, eventId = crypto.randomUUID(), currency = "USD") => ({
    merchant_id: "ML1",
    type: "payment.updated",
    event_id: eventId,
    created_at: new Date().toISOString(),
    data: {
      type: "payment",
      id: "sq_pay_1",
      object: { payment: { id: "sq_pay_1", status: "COMPLETED", reference_id: orderId, amount_money: { amount, currency } } },
    },
  });

  test("a COMPLETED payment for the order's total pays it as a Stripe success does, and its Stripe intent is cancelled", async () => {
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    expect((await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", stripePaymentIntentId: intent });
    expect(t.deps.processor.intents.get(intent)?.status).toBe("canceled");
  });

  test("paid through Square when its Stripe intent had just been paid too (3-D Secure passed, Stripe's webhook not yet heard): the Stripe money goes back, flagged (found by an attack)", async () => {
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    await t.deps.processor.confirmIntent(intent, "pm_card_threeDSecure2Required", "confirm-3ds");
    await t.deps.processor.completeAction(intent, true);
    expect((await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square" });
    // Charged once: the card's money, which the order does not need, back at once, under the late payment's key.
    expect([...t.deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId: intent, amount: total })]);
    expect(await t.deps.repos.refunds.listOfOrder(orderId)).toEqual([
      expect.objectContaining({ idempotencyKey: `late-payment-${intent}`, reason: "late_payment", confirmedAt: expect.any(Date) }),
    ]);
    const found = await auditEntries(t.deps.repos.audit, { action: "payment.succeeded", entityId: orderId });
    expect(found.map((entry) => entry.changes)).toEqual([expect.objectContaining({ intentId: intent, flagged: true, foundWhen: "paid_elsewhere" })]);
  });

  /** The shop's memory and clock, with a Stripe whose cancel fails while `down.value`, and every log line. */
  function stripeAwayForCancels() {
    const lines: Array<Record<string, unknown>> = [];
    const down = { value: true };
    const deps = t.deps;
    const logger = createJsonLogger("info", (line) => void lines.push(JSON.parse(line)));
    const payments = {
      ...deps.payments,
      cancelIntent: (intentId: string) =>
        down.value
          ? Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed", { outcomeUnknown: true }))
          : deps.payments.cancelIntent(intentId),
    };
    const away = { ...deps, logger, payments } as typeof deps;
    t = createTestApp(away, { webhooks: { square: squareWebhookVerifier(SQUARE_KEY, SQUARE_URL) } });
    const housekeeping = createHousekeeping(away, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
    return { lines, down, housekeeping };
  }

  test("paid through Square while Stripe cannot be reached to cancel its intent: the order is paid all the same, the intent left live is said at warn, and housekeeping cancels it once the try's time is over", async () => {
    const { lines, down, housekeeping } = stripeAwayForCancels();
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    expect((await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square" });
    expect(lines.filter((line) => line.event === "payment.intent_not_stopped")).toEqual([
      expect.objectContaining({ level: "warn", orderId, intentId: intent, error: "Payment processing failed" }),
    ]);
    down.value = false;
    // Within the try's lease the intent is the webhook's: housekeeping leaves it.
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 0 });
    expect(t.deps.processor.intents.get(intent)?.status).toBe("requires_payment_method");
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 1 });
    expect(t.deps.processor.intents.get(intent)?.status).toBe("canceled");
    // Stopped, it is due no more, and the order is as the payment left it.
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 0 });
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", stripePaymentIntentId: intent });
  });

  test("Stripe still away at housekeeping's try: the intent stays due and is tried again at a later run, not at every run", async () => {
    const { lines, down, housekeeping } = stripeAwayForCancels();
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL));
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 0 });
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 0 });
    // The webhook's try and housekeeping's first; the second run came within that try's lease.
    expect(lines.filter((line) => line.event === "payment.intent_not_stopped")).toHaveLength(2);
    down.value = false;
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 1 });
    expect(t.deps.processor.intents.get(intent)?.status).toBe("canceled");
  });

  test("an intent the customer paid while Stripe could not be reached to cancel it: housekeeping finds it paid, and its money goes back once, flagged", async () => {
    const { down, housekeeping } = stripeAwayForCancels();
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    expect((await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL))).status).toBe(200);
    // The customer's other tab pays the Stripe intent; Stripe's webhook never comes.
    await t.deps.processor.confirmIntent(intent, "pm_card_visa", "confirm-other-tab");
    down.value = false;
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 1, refundsMade: 0 });
    expect([...t.deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId: intent, amount: total })]);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square" });
    const found = await auditEntries(t.deps.repos.audit, { action: "payment.succeeded", entityId: orderId });
    expect(found.map((entry) => entry.changes)).toEqual([expect.objectContaining({ intentId: intent, flagged: true, foundWhen: "paid_elsewhere" })]);
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    await housekeeping.runOnce();
    expect(t.deps.processor.refunds.size).toBe(1);
  });

  test("a stop that found the intent paid and crashed right after settling it: a later run settles it no second time (one flagged entry, one refund)", async () => {
    const { down, housekeeping } = stripeAwayForCancels();
    const { orderId, order, total } = await anOrder();
    const intent = (await order()).stripePaymentIntentId!;
    await deliver("square", signedBySquare(completed(orderId, total), SQUARE_KEY, SQUARE_URL));
    await t.deps.processor.confirmIntent(intent, "pm_card_visa", "confirm-other-tab");
    down.value = false;
    // The process dies after the settlement's commit: every write after it fails, this run.
    const write = t.deps.uow.write;
    let crashed = false;
    t.deps.uow.write = (work) => (crashed ? Promise.reject(new Error("the process died here")) : write(work));
    const transaction = t.deps.uow.transaction;
    t.deps.uow.transaction = async (work) => {
      const done = await transaction(work);
      if (!crashed && (await auditEntries(t.deps.repos.audit, { action: "payment.succeeded", entityId: orderId })).length > 0) crashed = true;
      return done;
    };
    t.deps.clock.advance(INTENT_STOP_LEASE_MS);
    await housekeeping.runOnce();
    [t.deps.uow.write, t.deps.uow.transaction, crashed] = [write, transaction, false];
    for (let run = 0; run < 3; run++) {
      t.deps.clock.advance(INTENT_STOP_LEASE_MS);
      await housekeeping.runOnce();
    }
    const found = await auditEntries(t.deps.repos.audit, { action: "payment.succeeded", entityId: orderId });
    expect(found.map((entry) => entry.changes)).toEqual([expect.objectContaining({ intentId: intent, flagged: true, foundWhen: "paid_elsewhere" })]);
    expect([...t.deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId: intent, amount: total })]);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square" });
  });

  test("another amount or currency is recorded and flagged, not applied", async () => {
    const { orderId, order, total } = await anOrder();
    await deliver("square", signedBySquare(completed(orderId, total - 1), SQUARE_KEY, SQUARE_URL));
    await deliver("square", signedBySquare(completed(orderId, total, undefined, "EUR"), SQUARE_KEY, SQUARE_URL));
    expect((await order()).paymentStatus).toBe("PENDING");
    expect((await auditsOf("square")).map((a) => a.changes.flagged)).toEqual([true, true]);
  });

  test("signed for another URL, with another key, or unsigned: 400, nothing recorded", async () => {
    const { orderId, order, total } = await anOrder();
    const event = completed(orderId, total);
    const unsigned = { body: JSON.stringify(event), headers: { "content-type": "application/json" } };
    for (const delivery of [
      signedBySquare(event, SQUARE_KEY, "https://elsewhere.example.com/hook"),
      signedBySquare(event, "another key", SQUARE_URL),
      unsigned,
    ]) {
      expect(await deliver("square", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect((await order()).paymentStatus).toBe("PENDING");
  });
});

describe("PayPal", () => {
  const capture = (type: string, orderId: string, value: string, id = `WH-${crypto.randomUUID()}`) => ({
    id,
    event_type: type,
    resource_type: "capture",
    resource: { id: "CAPTURE-1", status: "COMPLETED", custom_id: orderId, amount: { value, currency_code: "USD" } },
  });
  const paying = (orderId: string, total: number) => capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2));
  const refused = { status: 400, body: { error: "Invalid signature" } };
  const certAt = (name: string) => `https://api.paypal.com/v1/notifications/certs/${name}`;
  /** 256 bytes, as long as an RSA-2048 signature, from no key at all. */
  const FORGED_SIGNATURE = Buffer.alloc(256, 7).toString("base64");

  /** The same shop (its memory and clock) with PayPal's certificate host serving what `pemAt` says. */
  function serving(pemAt: (url: string) => string | undefined) {
    certificates = testCertificateSource(pemAt);
    t = createTestApp(t.deps, { webhooks: { paypal: paypalWebhookVerifier({ webhookId: PAYPAL_WEBHOOK_ID, certificates }, t.deps.clock) } });
  }
  async function nothingHappened(order: () => Promise<{ paymentStatus: string }>) {
    expect((await order()).paymentStatus).toBe("PENDING");
    expect(t.deps.state.webhookEvents.size).toBe(0);
    expect(await auditsOf("paypal")).toEqual([]);
  }

  test("signed by the key of the certificate at its cert URL: a completed capture for the total pays the order, a refunded one is recorded; the certificate is fetched once", async () => {
    const { orderId, order, total } = await anOrder();
    expect((await deliver("paypal", signedForPayPal(paying(orderId, total)))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "paypal", paidReference: "CAPTURE-1" });
    expect((await deliver("paypal", signedForPayPal(capture("PAYMENT.CAPTURE.REFUNDED", orderId, "1.00")))).status).toBe(200);
    expect((await auditsOf("paypal")).map((a) => a.changes.type).sort()).toEqual(["PAYMENT.CAPTURE.COMPLETED", "PAYMENT.CAPTURE.REFUNDED"]);
    expect(certificates.fetched).toEqual([PAYPAL_TEST_CERT_URL]);
  });

  test("the signature covers the body's very bytes: spacing, escapes and a 1.0 that JSON.stringify would change still verify", async () => {
    const { orderId, order, total } = await anOrder();
    const body = `{ "id": "WH-BYTES-1", "event_type": "PAYMENT.CAPTURE.COMPLETED", "summary": "Paiement re\\u00e7u \\/ 1",
      "resource": { "id": "CAPTURE-BYTES", "custom_id": "${orderId}", "amount": { "value": "${(total / 100).toFixed(2)}", "currency_code": "USD" }, "fee": 1.0 } }`;
    expect((await deliver("paypal", signedForPayPal(body))).status).toBe(200);
    expect(await order()).toMatchObject({ paymentStatus: "PAID", paidReference: "CAPTURE-BYTES" });
  });

  test("anything PayPal signed, changed, is 400 with nothing recorded: one byte of the body, the webhook id, the transmission id, its time, the signature", async () => {
    const { orderId, order, total } = await anOrder();
    const good = signedForPayPal(paying(orderId, total));
    const aSecondLater = new Date(t.deps.clock.now().getTime() + 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const tampered: Delivery[] = [
      { body: good.body.replace('"CAPTURE-1"', '"CAPTURE-2"'), headers: good.headers },
      signedByPayPal(paying(orderId, total), "WH-ANOTHER-WEBHOOK", { at: t.deps.clock.now() }),
      { body: good.body, headers: { ...good.headers, "paypal-transmission-id": crypto.randomUUID() } },
      { body: good.body, headers: { ...good.headers, "paypal-transmission-time": aSecondLater } },
      {
        body: good.body,
        headers: { ...good.headers, "paypal-transmission-sig": signedForPayPal(paying(orderId, total)).headers["paypal-transmission-sig"] ?? "" },
      },
      { body: good.body, headers: { ...good.headers, "paypal-transmission-sig": FORGED_SIGNATURE } },
      { body: good.body, headers: { ...good.headers, "paypal-transmission-sig": "not base64 at all!" } },
    ];
    for (const delivery of tampered) expect(await deliver("paypal", delivery)).toMatchObject(refused);
    await nothingHappened(order);
    expect((await deliver("paypal", good)).status).toBe(200);
  });

  test("nothing is read before the signature holds: a forged body that is not JSON is Invalid signature; signed, it is Malformed event", async () => {
    const forged = signedForPayPal("{not json");
    expect(await deliver("paypal", { body: forged.body, headers: { ...forged.headers, "paypal-transmission-sig": FORGED_SIGNATURE } })).toMatchObject(refused);
    expect(await deliver("paypal", forged)).toMatchObject({ status: 400, body: { error: "Malformed event" } });
  });

  test("a header missing, another algorithm, or a time over five minutes off is refused before any certificate is fetched", async () => {
    const { orderId, order, total } = await anOrder();
    const good = signedForPayPal(paying(orderId, total));
    const deliveries: Delivery[] = [];
    for (const header of Object.keys(good.headers).filter((h) => h.startsWith("paypal-"))) {
      const { [header]: _, ...missing } = good.headers;
      deliveries.push({ body: good.body, headers: missing });
    }
    for (const algorithm of ["SHA1withRSA", "SHA512withRSA", "SHA256withECDSA", "sha256WithRSAEncryption", "none"])
      deliveries.push({ body: good.body, headers: { ...good.headers, "paypal-auth-algo": algorithm } });
    for (const minutes of [-6, 6]) deliveries.push(signedForPayPal(paying(orderId, total), { at: new Date(t.deps.clock.now().getTime() + minutes * 60_000) }));
    deliveries.push({ body: good.body, headers: { ...good.headers, "paypal-transmission-time": "yesterday" } });
    for (const delivery of deliveries) expect(await deliver("paypal", delivery)).toMatchObject(refused);
    expect(certificates.fetched).toEqual([]);
    await nothingHappened(order);
  });

  test("a cert URL that is not https on paypal.com or a subdomain is refused before anything is fetched, though the host would serve the right certificate", async () => {
    serving(() => PAYPAL_TEST_CERT);
    const { orderId, order, total } = await anOrder();
    for (const certUrl of [
      "http://api.paypal.com/v1/notifications/certs/CERT-1",
      "https://paypal.com.evil.example/v1/notifications/certs/CERT-1",
      "https://api.paypal.com.evil.example/cert.pem",
      "https://evilpaypal.com/cert.pem",
      "https://evil.example/api.paypal.com/cert.pem",
      "https://evil.example/?u=https://api.paypal.com/cert.pem",
      "https://api.paypal.com@evil.example/cert.pem",
      "https://api.paypal.com:443@evil.example/cert.pem",
      "https://evil.example\\@api.paypal.com/cert.pem",
      "https://user:secret@api.paypal.com/cert.pem",
      "https://api.paypal.com:8443/cert.pem",
      "https://api.paypal.com./cert.pem",
      "https://api.paypal.com%2eevil.example/cert.pem",
      "ftp://api.paypal.com/cert.pem",
      "//api.paypal.com/cert.pem",
      "api.paypal.com/cert.pem",
    ]) {
      expect([certUrl, await deliver("paypal", signedForPayPal(paying(orderId, total), { certUrl }))]).toMatchObject([certUrl, refused]);
    }
    expect(certificates.fetched).toEqual([]);
    await nothingHappened(order);
    // PayPal's own hosts, however the URL spells them, are fetched.
    for (const certUrl of [certAt("CERT-LIVE"), "https://paypal.com/cert.pem", "https://API.PayPal.com:443/cert.pem"]) {
      expect((await deliver("paypal", signedForPayPal(capture("CUSTOMER.NOTICE", orderId, "1.00"), { certUrl }))).status).toBe(200);
    }
    expect(certificates.fetched).toEqual([certAt("CERT-LIVE"), "https://paypal.com/cert.pem", "https://api.paypal.com/cert.pem"]);
  });

  test("an expired certificate, one not valid yet, one whose key is not RSA, text that is no certificate, and one that cannot be fetched: 400, nothing recorded", async () => {
    const served: Record<string, string> = {
      [certAt("EXPIRED")]: PAYPAL_EXPIRED_CERT,
      [certAt("EC")]: PAYPAL_EC_CERT,
      [certAt("TEXT")]: "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
      [certAt("VALID")]: PAYPAL_TEST_CERT,
    };
    serving((url) => served[url]);
    const { orderId, order, total } = await anOrder();
    const event = paying(orderId, total);
    // The expired certificate has the very key that signs; the EC one signs with its own key.
    for (const delivery of [
      signedForPayPal(event, { certUrl: certAt("EXPIRED") }),
      signedForPayPal(event, { certUrl: certAt("EC"), key: PAYPAL_EC_KEY }),
      signedForPayPal(event, { certUrl: certAt("TEXT") }),
      signedForPayPal(event, { certUrl: certAt("MISSING") }),
    ])
      expect(await deliver("paypal", delivery)).toMatchObject(refused);
    const now = t.deps.clock.now();
    t.deps.clock.set(new Date("2024-12-31T23:59:00Z"));
    expect(await deliver("paypal", signedForPayPal(event, { certUrl: certAt("VALID") }))).toMatchObject(refused);
    t.deps.clock.set(now);
    await nothingHappened(order);
    expect((await deliver("paypal", signedForPayPal(event, { certUrl: certAt("VALID") }))).status).toBe(200);
  });

  test("forged deliveries cost one certificate fetch per URL: 100 naming one URL fetch it once, 10 at once naming another once; one that failed is asked again only a minute later", async () => {
    serving((url) => (url.endsWith("GONE") ? undefined : PAYPAL_TEST_CERT));
    const { orderId, order, total } = await anOrder();
    const forged = (certUrl: string) => {
      const delivery = signedForPayPal(paying(orderId, total), { certUrl });
      return { body: delivery.body, headers: { ...delivery.headers, "paypal-transmission-sig": FORGED_SIGNATURE } };
    };
    const fetchesOf = (url: string) => certificates.fetched.filter((fetched) => fetched === url).length;
    for (let i = 0; i < 100; i++) expect(await deliver("paypal", forged(certAt("ONE")))).toMatchObject(refused);
    expect(fetchesOf(certAt("ONE"))).toBe(1);

    const release = certificates.hold();
    const atOnce = Promise.all(Array.from({ length: 10 }, () => deliver("paypal", forged(certAt("OTHER")))));
    await eventually(() => expect(fetchesOf(certAt("OTHER"))).toBe(1));
    release();
    expect((await atOnce).map((answer) => answer.status)).toEqual(Array(10).fill(400));
    expect(fetchesOf(certAt("OTHER"))).toBe(1);

    for (let i = 0; i < 10; i++) expect(await deliver("paypal", forged(certAt("GONE")))).toMatchObject(refused);
    expect(fetchesOf(certAt("GONE"))).toBe(1);
    t.deps.clock.advance(61_000);
    expect(await deliver("paypal", forged(certAt("GONE")))).toMatchObject(refused);
    expect(fetchesOf(certAt("GONE"))).toBe(2);
    expect(certificates.fetched).toHaveLength(4);
    await nothingHappened(order);
  });

  test("an amount far above any total is flagged, not refused; an amount that is no amount is malformed", async () => {
    const { orderId, order } = await anOrder();
    expect((await deliver("paypal", signedForPayPal(capture("PAYMENT.CAPTURE.COMPLETED", orderId, "12345678901.00")))).status).toBe(200);
    expect((await auditsOf("paypal"))[0]?.changes).toMatchObject({ flagged: true, amount: 1234567890100 });
    expect(await deliver("paypal", signedForPayPal(capture("PAYMENT.CAPTURE.COMPLETED", orderId, "1e5")))).toMatchObject({
      status: 400,
      body: { error: "Malformed event" },
    });
    expect((await order()).paymentStatus).toBe("PENDING");
  });
});

describe("what a verified event may say", () => {
  const nothingRecorded = () => expect(t.deps.state.webhookEvents.size).toBe(0);

  test("a signed body that is not JSON, or not an event, is 400 Malformed event, never a 500, with nothing recorded", async () => {
    const deliveries: Array<[string, Delivery]> = [
      ["easypost", signedByEasyPost("{not json", EASYPOST_SECRET)],
      ["resend", signedByResend("{not json", RESEND_SECRET, "msg_not_json")],
      ["square", signedBySquare("{not json", SQUARE_KEY, SQUARE_URL)],
      ["paypal", signedForPayPal("{not json")],
      ["easypost", signedByEasyPost("[1, 2]", EASYPOST_SECRET)],
    ];
    for (const [provider, delivery] of deliveries) expect(await deliver(provider, delivery)).toMatchObject({ status: 400, body: { error: "Malformed event" } });
    nothingRecorded();
  });

  test("text the shop would keep (a type, a currency, a carrier status, an address) with a NUL or control character is malformed, not a database error", async () => {
    const { orderId, total } = await anOrder();
    const payment = (currency: string, type = "payment.updated") => ({
      type,
      event_id: crypto.randomUUID(),
      data: { object: { payment: { id: "sq_nul", status: "COMPLETED", reference_id: orderId, amount_money: { amount: total, currency } } } },
    });
    const deliveries: Array<[string, Delivery]> = [
      ["square", signedBySquare(payment("US\u0000"), SQUARE_KEY, SQUARE_URL)],
      ["square", signedBySquare(payment("USD", "payment.updated\u0000"), SQUARE_KEY, SQUARE_URL)],
      [
        "easypost",
        signedByEasyPost({ id: "evt_nul", description: "tracker.updated", result: { tracking_code: "EZ1", status: "deliver\u0000ed" } }, EASYPOST_SECRET),
      ],
      ["easypost", signedByEasyPost({ id: "evt_nul2", description: "tracker.\u0000updated", result: null }, EASYPOST_SECRET)],
      ["resend", signedByResend({ type: "email.bounced", data: { to: ["ada\u0000@example.com"] } }, RESEND_SECRET, "msg_nul")],
      ["resend", signedByResend({ type: "email.bounced", data: { to: ["\ud800@example.com"] } }, RESEND_SECRET, "msg_surrogate")],
    ];
    for (const [provider, delivery] of deliveries) {
      const res = await deliver(provider, delivery);
      expect([provider, res.status, res.body.error]).toEqual([provider, 400, "Malformed event"]);
    }
    nothingRecorded();
  });

  test("events the shop does not act on are 200 whatever else they carry: only their id and type are read", async () => {
    const deliveries: Array<[string, Delivery]> = [
      ["square", signedBySquare({ type: "location.created", event_id: "sq-loc-1", data: { type: "location", id: "L1" } }, SQUARE_KEY, SQUARE_URL)],
      [
        "square",
        signedBySquare(
          { type: "payment.updated", event_id: "sq-approved", data: { object: { payment: { id: "p", status: "APPROVED", amount_money: "soon" } } } },
          SQUARE_KEY,
          SQUARE_URL,
        ),
      ],
      ["easypost", signedByEasyPost({ id: "evt_batch", description: "batch.created", result: null }, EASYPOST_SECRET)],
      ["resend", signedByResend({ type: "email.sent", data: { to: "not a list", email_id: 42 } }, RESEND_SECRET, "msg_sent")],
      ["paypal", signedForPayPal({ id: "WH-CHECKOUT", event_type: "CHECKOUT.ORDER.APPROVED", resource: { amount: 5, purchase_units: [] } })],
      // Without the part a provider-specific event carries at all.
      ["easypost", signedByEasyPost({ id: "evt_bare", description: "batch.created" }, EASYPOST_SECRET)],
      ["square", signedBySquare({ type: "location.created", event_id: "sq-bare" }, SQUARE_KEY, SQUARE_URL)],
      ["resend", signedByResend({ type: "email.opened" }, RESEND_SECRET, "msg_bare")],
      ["paypal", signedForPayPal({ id: "WH-BARE", event_type: "CHECKOUT.ORDER.APPROVED" })],
    ];
    for (const [provider, delivery] of deliveries) {
      const res = await deliver(provider, delivery);
      expect([provider, res.status]).toEqual([provider, 200]);
    }
    nothingRecorded();
  });

  test("a bounce's addresses are read as the provider writes them: an address the shop might think odd is still suppressed", async () => {
    const bounced = { type: "email.bounced", data: { to: ["ops@intranet", "O'Brien+orders@Example.co.uk"] } };
    expect((await deliver("resend", signedByResend(bounced, RESEND_SECRET, "msg_odd"))).status).toBe(200);
    expect(await t.deps.repos.suppressions.has("ops@intranet")).toBe(true);
    expect(await t.deps.repos.suppressions.has("o'brien+orders@example.co.uk")).toBe(true);
  });

  test("money or a parcel for no order of ours is kept in the audit log (the money flagged), and the redelivery changes nothing", async () => {
    const stranger = "ckx000000000000000000000";
    const square = signedBySquare(
      {
        type: "payment.updated",
        event_id: "sq-stranger",
        data: { object: { payment: { id: "sq_stranger", status: "COMPLETED", reference_id: stranger, amount_money: { amount: 500, currency: "USD" } } } },
      },
      SQUARE_KEY,
      SQUARE_URL,
    );
    expect((await deliver("square", square)).status).toBe(200);
    expect((await deliver("square", square)).status).toBe(200);
    expect((await auditsOf("square")).map((a) => [a.entityType, a.changes])).toEqual([
      [
        "webhook",
        { eventId: "sq-stranger", type: "payment.updated", event: "succeeded", intentId: "sq_stranger", orderId: stranger, found: false, flagged: true },
      ],
    ]);
    expect(
      (
        await deliver(
          "easypost",
          signedByEasyPost({ id: "evt_lost", description: "tracker.updated", result: { tracking_code: "NOT-OURS", status: "delivered" } }, EASYPOST_SECRET),
        )
      ).status,
    ).toBe(200);
    expect((await auditsOf("easypost")).map((a) => a.changes)).toEqual([
      { eventId: "evt_lost", type: "tracker.updated", trackingCode: "NOT-OURS", carrierStatus: "delivered", found: false },
    ]);
  });
});

test("a provider that is not configured answers 503; one the shop does not know, 404", async () => {
  const bare = createTestApp();
  for (const [provider, name] of [
    ["easypost", "EasyPost"],
    ["resend", "Resend"],
    ["square", "Square"],
    ["paypal", "PayPal"],
  ]) {
    const res = await bare.call("POST", `/api/webhooks/${provider}`, { body: "{}", headers: { "content-type": "application/json" } });
    expect(res).toMatchObject({ status: 503, body: { error: `${name} webhooks are not configured` } });
  }
  expect((await bare.call("POST", "/api/webhooks/fedex", { body: "{}" })).status).toBe(404);
});
