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
import { type TestApp, TEST_PUBLIC_URL, createTestApp } from "../support/http.ts";
import { GOOD_SIGNATURE, type PayPalServer, startPayPalServer } from "../support/paypal-server.ts";
import { type Delivery, signedByEasyPost, signedByPayPal, signedByResend, signedBySquare } from "../support/webhook-signers.ts";

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
      paypal: paypalWebhookVerifier(createPayPalSignatureCheck({ ...PAYPAL, apiBase: paypal.url }, systemClock)),
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

describe("EasyPost", () => {
  const tracker = (code: string, status: string, id = `evt_${crypto.randomUUID()}`) => ({ id, object: "Event", description: "tracker.updated", result: { object: "Tracker", tracking_code: code, status } });

  test("a signed tracker.updated with delivered moves the SHIPPED order with that tracking number to DELIVERED; another status is recorded only", async () => {
    const { orderId, order } = await anOrder();
    await t.deps.repos.orders.update(orderId, { status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "EZ1000000001", updatedAt: new Date() });
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "in_transit"), EASYPOST_SECRET))).status).toBe(200);
    expect((await order()).status).toBe("SHIPPED");
    expect((await deliver("easypost", signedByEasyPost(tracker("EZ1000000001", "delivered"), EASYPOST_SECRET))).body).toEqual({ received: true });
    expect((await order()).status).toBe("DELIVERED");
    expect((await auditsOf("easypost")).map((a) => [a.changes.carrierStatus, a.changes.to]).sort()).toEqual([["delivered", "DELIVERED"], ["in_transit", "SHIPPED"]]);
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
    const bounced = { type: "email.bounced", created_at: new Date().toISOString(), data: { email_id: "re_1", to: [shopper.email.toUpperCase()], subject: "Welcome" } };
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
    expect((await deliver("resend", signedByResend({ type: "email.delivered", data: { email_id: "re_delivered_1", to: ["ada@example.com"] } }, RESEND_SECRET, "msg_delivered_1"))).status).toBe(200);
    expect((await t.deps.repos.outbox.list())[0]?.deliveredAt).toBeInstanceOf(Date);
  });

  test("wrongly signed, unsigned or stale (over 5 minutes): 400, nothing recorded", async () => {
    const event = { type: "email.bounced", data: { to: ["victim@example.com"] } };
    const stale = signedByResend(event, RESEND_SECRET, "msg_old", new Date(Date.now() - 10 * 60_000));
    const forged = signedByResend(event, `whsec_${Buffer.from("another secret").toString("base64")}`, "msg_forged");
    const unsigned = { body: JSON.stringify(event), headers: { "content-type": "application/json" } };
    for (const delivery of [stale, forged, unsigned]) expect(await deliver("resend", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    expect(await t.deps.repos.suppressions.has("victim@example.com")).toBe(false);
  });
});

describe("Square", () => {
  const completed = (orderId: string, amount: number, eventId = crypto.randomUUID(), currency = "USD") => ({
    merchant_id: "ML1",
    type: "payment.updated",
    event_id: eventId,
    created_at: new Date().toISOString(),
    data: { type: "payment", id: "sq_pay_1", object: { payment: { id: "sq_pay_1", status: "COMPLETED", reference_id: orderId, amount_money: { amount, currency } } } },
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
    for (const delivery of [signedBySquare(event, SQUARE_KEY, "https://elsewhere.example.com/hook"), signedBySquare(event, "another key", SQUARE_URL), unsigned]) {
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

  test("PayPal's API says the signature holds: a completed capture for the total pays the order; a refunded one is recorded; the token is asked for once", async () => {
    const { orderId, order, total } = await anOrder();
    const tokensBefore = paypal.ran("/v1/oauth2/token");
    expect((await deliver("paypal", signedByPayPal(capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2)), GOOD_SIGNATURE))).status).toBe(200);
    expect(await order()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paidVia: "paypal" });
    expect((await deliver("paypal", signedByPayPal(capture("PAYMENT.CAPTURE.REFUNDED", orderId, "1.00"), GOOD_SIGNATURE))).status).toBe(200);
    expect((await auditsOf("paypal")).map((a) => a.changes.type).sort()).toEqual(["PAYMENT.CAPTURE.COMPLETED", "PAYMENT.CAPTURE.REFUNDED"]);
    expect(paypal.ran("/v1/oauth2/token") - tokensBefore).toBe(1);
    const asked = paypal.calls.filter((c) => c.path === "/v1/notifications/verify-webhook-signature").at(-1)!.body;
    expect(asked).toMatchObject({ webhook_id: PAYPAL.webhookId, auth_algo: "SHA256withRSA", transmission_sig: GOOD_SIGNATURE, webhook_event: { event_type: "PAYMENT.CAPTURE.REFUNDED" } });
  });

  test("a verification PayPal refuses is 400; so is a delivery with a header missing", async () => {
    const { orderId, order, total } = await anOrder();
    const event = capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2));
    expect(await deliver("paypal", signedByPayPal(event, "forged-signature"))).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    const { "paypal-transmission-sig": _, ...missing } = signedByPayPal(event, GOOD_SIGNATURE).headers;
    expect((await deliver("paypal", { body: JSON.stringify(event), headers: missing })).status).toBe(400);
    expect((await order()).paymentStatus).toBe("PENDING");
  });

  test("a cert URL off paypal.com is refused before any call to PayPal", async () => {
    const { orderId, total } = await anOrder();
    const before = paypal.calls.length;
    for (const certUrl of ["https://evil.example.com/cert.pem", "https://paypal.com.evil.example.com/cert.pem", "http://api.paypal.com/cert.pem"]) {
      const delivery = signedByPayPal(capture("PAYMENT.CAPTURE.COMPLETED", orderId, (total / 100).toFixed(2)), GOOD_SIGNATURE, certUrl);
      expect(await deliver("paypal", delivery)).toMatchObject({ status: 400, body: { error: "Invalid signature" } });
    }
    expect(paypal.calls.length).toBe(before);
  });
});

test("a provider that is not configured answers 503; one the shop does not know, 404", async () => {
  const bare = createTestApp();
  for (const provider of ["easypost", "resend", "square", "paypal"]) {
    const res = await bare.call("POST", `/api/webhooks/${provider}`, { body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(503);
    expect(res.body.error).toEndWith("webhooks are not configured");
  }
  expect((await bare.call("POST", "/api/webhooks/fedex", { body: "{}" })).status).toBe(404);
});
