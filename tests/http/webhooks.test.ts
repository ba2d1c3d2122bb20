import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { easypostWebhookVerifier } from "../../src/adapters/events/easypost.ts";
import { createPayPalSignatureCheck } from "../../src/adapters/events/paypal-api.ts";
import { paypalWebhookVerifier } from "../../src/adapters/events/paypal.ts";
import { resendWebhookVerifier } from "../../src/adapters/events/resend.ts";
import { squareWebhookVerifier } from "../../src/adapters/events/square.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { systemClock } from "../../src/adapters/system.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, TEST_PUBLIC_URL, TEST_WEBHOOK_SECRET, createTestApp } from "../support/http.ts";
import { type PayPalServer, startPayPalServer } from "../support/paypal-server.ts";
import { type Delivery, signedByEasyPost, signedByPayPal, signedByResend, signedBySquare, signedByStripe } from "../support/webhook-signers.ts";

const EASYPOST_SECRET = "easypost-webhook-secret-ﬁ"; // a ligature NFKD turns into "fi"
const RESEND_SECRET = `whsec_${Buffer.from("resend-signing-secret-for-tests").toString("base64")}`;
const SQUARE_KEY = "square-signature-key";
const SQUARE_URL = `${TEST_PUBLIC_URL}/api/webhooks/square`;
const PAYPAL = { clientId: "paypal-client", clientSecret: "paypal-secret", webhookId: "WH-TEST-1" };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

let paypal: PayPalServer;
let t: TestApp;
beforeAll(async () => {
  paypal = await startPayPalServer(PAYPAL);
});
afterAll(() => paypal.close());
beforeEach(async () => {
  t = createTestApp(createMemoryDeps(), {
    webhooks: {
      easypost: easypostWebhookVerifier(EASYPOST_SECRET),
      resend: resendWebhookVerifier(RESEND_SECRET),
      square: squareWebhookVerifier(SQUARE_KEY, SQUARE_URL),
      paypal: paypalWebhookVerifier(createPayPalSignatureCheck({ ...PAYPAL, apiBase: paypal.url }, systemClock), systemClock),
    },
  });
});

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

const auditsOf = (provider: string) => t.deps.repos.audit.list({ action: `webhook.${provider}` });

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

  test("a signed tracker.updated with delivered moves the SHIPPED order with that tracking number to DELIVERED; another status is recorded only", async () => {
    const { orderId, order } = await anOrder();
    await t.deps.repos.orders.update(orderId, { status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "EZ1000000001", updatedAt: new Date() });
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "in_transit"), EASYPOST_SECRET))).status).toBe(200);
    expect((await order()).status).toBe("SHIPPED");
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "delivered"), EASYPOST_SECRET))).body).toEqual({ received: true });
    expect((await order()).status).toBe("DELIVERED");
    expect((await auditsOf("easypost")).map((a) => [a.changes.carrierStatus, a.changes.to]).sort()).toEqual([
      ["delivered", "DELIVERED"],
      ["in_transit", "SHIPPED"],
    ]);
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

  test("email.delivered marks the message the provider knows by that id", async () => {
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
  const signed = (event: object | string, options?: Parameters<typeof signedByPayPal>[2]) => signedByPayPal(event, PAYPAL.webhookId, options);
  const verifications = () => paypal.ran("/v1/notifications/verify-webhook-signature");

  test("PayPal's API says the signature holds: a completed capture for the total pays the order; a refunded one is recorded; the token is asked for once", async () => {
    const { orderId, order, total } = await anOrder();
    const tokensBefore = paypal.ran("/v1/oauth2/token");
    expect((await deliver("paypal", signed(capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2))))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "paypal", paidReference: "CAPTURE-1" });
    expect((await deliver("paypal", signed(capture("PAYMENT.CAPTURE.REFUNDED", orderId, "1.00")))).status).toBe(200);
    expect((await auditsOf("paypal")).map((a) => a.changes.type).sort()).toEqual(["PAYMENT.CAPTURE.COMPLETED", "PAYMENT.CAPTURE.REFUNDED"]);
    expect(paypal.ran("/v1/oauth2/token") - tokensBefore).toBe(1);
    const asked = paypal.calls.filter((c) => c.path === "/v1/notifications/verify-webhook-signature").at(-1)!.body;
    expect(asked).toMatchObject({ webhook_id: PAYPAL.webhookId, auth_algo: "SHA256withRSA", webhook_event: { event_type: "PAYMENT.CAPTURE.REFUNDED" } });
  });

  test("PayPal is asked about the body's very bytes: spacing, escapes and a 1.0 that JSON.stringify would change still verify", async () => {
    const { orderId, order, total } = await anOrder();
    const body = `{ "id": "WH-BYTES-1", "event_type": "PAYMENT.CAPTURE.COMPLETED", "summary": "Paiement re\\u00e7u \\/ 1",
      "resource": { "id": "CAPTURE-BYTES", "custom_id": "${orderId}", "amount": { "value": "${(total / 100).toFixed(2)}", "currency_code": "USD" }, "fee": 1.0 } }`;
    expect((await deliver("paypal", signed(body))).status).toBe(200);
    expect(await order()).toMatchObject({ paymentStatus: "PAID", paidReference: "CAPTURE-BYTES" });
  });

  test("a verification PayPal refuses is 400; so is a delivery missing any one header, with another algorithm, or sent over five minutes ago or ahead, the last three before any call", async () => {
    const { orderId, order, total } = await anOrder();
    const event = capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2));
    expect(await deliver("paypal", signed(event, { signature: "forged-signature" }))).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    const signedFor = signed(event);
    expect(await deliver("paypal", { body: JSON.stringify({ ...event, id: "WH-OTHER" }), headers: signedFor.headers })).toMatchObject({ status: 400 });
    const before = verifications();
    for (const header of Object.keys(signedFor.headers).filter((h) => h.startsWith("paypal-"))) {
      const { [header]: _, ...missing } = signedFor.headers;
      expect(await deliver("paypal", { body: signedFor.body, headers: missing })).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect(await deliver("paypal", { body: signedFor.body, headers: { ...signedFor.headers, "paypal-auth-algo": "SHA1withRSA" } })).toMatchObject({
      status: 400,
    });
    for (const at of [new Date(Date.now() - 6 * 60_000), new Date(Date.now() + 6 * 60_000)]) {
      expect(await deliver("paypal", signed(event, { at }))).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect(await deliver("paypal", signed("not json"))).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    expect(verifications()).toBe(before);
    expect((await order()).paymentStatus).toBe("PENDING");
    expect(t.deps.state.webhookEvents.size).toBe(0);
  });

  test("a cert URL off paypal.com is refused before any call to PayPal", async () => {
    const { orderId, total } = await anOrder();
    const before = paypal.calls.length;
    for (const certUrl of ["https://evil.example.com/cert.pem", "https://paypal.com.evil.example.com/cert.pem", "http://api.paypal.com/cert.pem"]) {
      const delivery = signed(capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2)), { certUrl });
      expect(await deliver("paypal", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect(paypal.calls.length).toBe(before);
  });

  test("the token: asked for once by ten deliveries at once; asked for again when PayPal stops taking it, and the delivery still verifies", async () => {
    const { orderId, total } = await anOrder();
    const tokensBefore = paypal.ran("/v1/oauth2/token");
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => deliver("paypal", signed(capture(`CUSTOMER.NOTICE.${i}`, orderId, "1.00")))));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(paypal.ran("/v1/oauth2/token") - tokensBefore).toBe(1);
    paypal.expireTokens();
    expect((await deliver("paypal", signed(capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2))))).status).toBe(200);
    expect(paypal.ran("/v1/oauth2/token") - tokensBefore).toBe(2);
  });

  test("an amount far above any total is flagged, not refused; an amount that is no amount is malformed", async () => {
    const { orderId, order } = await anOrder();
    expect((await deliver("paypal", signed(capture("PAYMENT.CAPTURE.COMPLETED", orderId, "12345678901.00")))).status).toBe(200);
    expect((await auditsOf("paypal"))[0]?.changes).toMatchObject({ flagged: true, amount: 1234567890100 });
    expect(await deliver("paypal", signed(capture("PAYMENT.CAPTURE.COMPLETED", orderId, "1e5")))).toMatchObject({
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
      ["paypal", signedByPayPal({ id: "WH-CHECKOUT", event_type: "CHECKOUT.ORDER.APPROVED", resource: { amount: 5, purchase_units: [] } }, PAYPAL.webhookId)],
      // Without the part a provider-specific event carries at all.
      ["easypost", signedByEasyPost({ id: "evt_bare", description: "batch.created" }, EASYPOST_SECRET)],
      ["square", signedBySquare({ type: "location.created", event_id: "sq-bare" }, SQUARE_KEY, SQUARE_URL)],
      ["resend", signedByResend({ type: "email.opened" }, RESEND_SECRET, "msg_bare")],
      ["paypal", signedByPayPal({ id: "WH-BARE", event_type: "CHECKOUT.ORDER.APPROVED" }, PAYPAL.webhookId)],
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
