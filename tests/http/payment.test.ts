import { beforeEach, describe, expect, test } from "bun:test";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { redeliverFakeEvents } from "../../src/adapters/payments/fake-processor-events.ts";
import { databaseUnavailable } from "../../src/domain/errors.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 10 });

let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
beforeEach(async () => {
  t = createTestApp();
  await t.deps.repos.products.create(structuredClone(sauce));
  me = await signedInAs(t);
});

async function anOrder(shopper = me, app = t) {
  const line = (await app.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 2 }, headers: shopper.headers })).body.cartItem.id;
  return (await app.call("POST", "/api/orders", { body: { cartItemIds: [line], shippingAddress: texas }, headers: shopper.headers })).body as {
    orderId: string;
    orderNumber: string;
  };
}
const pay = (body: unknown, headers: Record<string, string> = me.headers, app = t) => app.call("POST", "/api/payment", { body, headers });

describe("POST /api/payment", () => {
  test("200 with success, the intent and the order's new statuses", async () => {
    const { orderId, orderNumber } = await anOrder();
    const res = await pay({ orderId, paymentMethodId: "pm_card_visa" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      paymentIntent: { id: expect.stringMatching(/^pi_/), status: "succeeded", clientSecret: expect.stringContaining("_secret_"), nextAction: null },
      order: { id: orderId, orderNumber, paymentStatus: "PAID", status: "CONFIRMED" },
    });
    expect((await t.call("GET", `/api/orders/${orderId}`, { headers: me.headers })).body).toMatchObject({
      status: "CONFIRMED",
      paymentStatus: "PAID",
      stripePaymentIntentId: res.body.paymentIntent.id,
    });
  });

  test("validation comes first, then the session: bad input is 400 naming the field, even for another's order", async () => {
    const { orderId } = await anOrder();
    const stranger = await signedInAs(t);
    for (const [body, path] of [
      [{ paymentMethodId: "pm_card_visa" }, "orderId"],
      [{ orderId: "not-a-cuid", paymentMethodId: "pm_card_visa" }, "orderId"],
      [{ orderId, paymentMethodId: "pm card visa" }, "paymentMethodId"],
      [{ orderId, paymentMethodId: "pm_card_visa", amount: 1 }, "amount"],
    ] as const) {
      const res = await pay(body, stranger.headers);
      expect([res.status, res.body.error]).toEqual([400, "Invalid request"]);
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect((await t.call("POST", "/api/payment", { body: { orderId, paymentMethodId: "pm_card_visa" } })).status).toBe(401);
  });

  test("the checks in decisions §4's order, with their texts: 404, 403, already paid, not payable", async () => {
    const { orderId } = await anOrder();
    const stranger = await signedInAs(t);
    expect((await pay({ orderId: "z12345678901234567890123", paymentMethodId: "pm_card_visa" })).body).toEqual({ error: "Order not found" });
    expect((await pay({ orderId, paymentMethodId: "pm_card_visa" }, stranger.headers)).status).toBe(403);
    await pay({ orderId, paymentMethodId: "pm_card_visa" });
    expect(await pay({ orderId, paymentMethodId: "pm_card_visa" })).toMatchObject({ status: 400, body: { error: "Order has already been paid" } });
    const other = await anOrder();
    const staff = await signedInAs(t, "STAFF");
    await t.call("PUT", `/api/orders/${other.orderId}/status`, { body: { status: "CANCELLED" }, headers: staff.headers });
    expect(await pay({ orderId: other.orderId, paymentMethodId: "pm_card_visa" })).toMatchObject({
      status: 400,
      body: { error: "Order cannot be paid in its current status" },
    });
  });

  test("a decline is 402 with the code and decline code; the order stays payable; an unknown method is 400", async () => {
    const { orderId } = await anOrder();
    const declined = await pay({ orderId, paymentMethodId: "pm_card_chargeDeclinedInsufficientFunds" });
    expect([declined.status, declined.body]).toEqual([
      402,
      { error: "Your card was declined.", details: { code: "card_declined", declineCode: "insufficient_funds" } },
    ]);
    expect((await t.call("GET", `/api/orders/${orderId}`, { headers: me.headers })).body).toMatchObject({ status: "PENDING", paymentStatus: "FAILED" });
    expect(await pay({ orderId, paymentMethodId: "pm_card_bogus" })).toMatchObject({ status: 400, body: { error: "No such payment method: 'pm_card_bogus'" } });
    expect(await pay({ orderId, paymentMethodId: "__proto__" })).toMatchObject({ status: 400, body: { error: "No such payment method: '__proto__'" } });
    expect((await pay({ orderId, paymentMethodId: "pm_card_visa" })).body.success).toBe(true);
  });

  test("3-D Secure: 200 with success false, requires_action, the client secret, and on the fake processor its challenge page", async () => {
    const { orderId } = await anOrder();
    const res = await pay({ orderId, paymentMethodId: "pm_card_threeDSecure2Required" });
    expect(res.body).toMatchObject({
      success: false,
      paymentIntent: { status: "requires_action", clientSecret: expect.stringContaining("_secret_") },
      order: { paymentStatus: "PENDING", status: "PENDING" },
    });
    expect(res.body.paymentIntent.nextAction).toEqual({ redirectUrl: `http://localhost:3000/api/fake-processor/challenge/${res.body.paymentIntent.id}` });
  });
});

describe("3-D Secure on the built-in fake processor: its challenge page (decisions §13)", () => {
  async function challenged() {
    const { orderId, orderNumber } = await anOrder();
    const { paymentIntent } = (await pay({ orderId, paymentMethodId: "pm_card_threeDSecure2Required" })).body;
    return { orderId, orderNumber, intentId: paymentIntent.id as string, path: new URL(paymentIntent.nextAction.redirectUrl).pathname };
  }
  const order = async (orderId: string) => (await t.call("GET", `/api/orders/${orderId}`, { headers: me.headers })).body;
  /** The bank's answer posted while the shop's webhook pipeline cannot take its event (the database away): the answer's status. */
  async function answeredWhileTheShopCannotTakeIt(answerPath: string): Promise<number> {
    const receive = t.useCases.receiveWebhookEvent;
    t.useCases.receiveWebhookEvent = () => Promise.reject(databaseUnavailable(new Error("connect ECONNREFUSED 127.0.0.1:5432")));
    try {
      return (await t.call("POST", answerPath)).status;
    } finally {
      t.useCases.receiveWebhookEvent = receive;
    }
  }

  test("the page shows the amount and the order, with Authorize and Fail posting to the shop", async () => {
    const { orderNumber, path } = await challenged();
    const res = await t.app.handle(new Request(`http://localhost${path}?return=%2Forders%2Fx`));
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const page = await res.text();
    // Two Habaneros at $12.99, $6.99 shipping, Texas tax of 6.25 % on $25.98 ($1.62): $34.59.
    expect(page).toContain("$34.59");
    expect(page).toContain(orderNumber);
    const actions = [...page.matchAll(/<form method="post" action="([^"]+)"><button type="submit">(\w+)<\/button>/g)].map(([, action, label]) => [
      label,
      action,
    ]);
    expect(actions).toEqual([
      ["Authorize", `${path}/authorize?return=%2Forders%2Fx`],
      ["Fail", `${path}/fail?return=%2Forders%2Fx`],
    ]);
  });

  test("Authorize: the intent succeeds and the order is CONFIRMED and PAID, as Stripe's webhook would leave it, once", async () => {
    const { orderId, intentId, path } = await challenged();
    const res = await t.call("POST", `${path}/authorize`);
    expect(res.body).toEqual({ paymentIntent: { id: intentId, status: "succeeded" }, orderId, outcome: "applied" });
    expect(await order(orderId)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    const [audit] = await auditEntries(t.deps.repos.audit, { action: "webhook.stripe" });
    expect(audit).toMatchObject({ entityId: orderId });
    // Answered once: the bank has nothing more to ask.
    expect([(await t.call("POST", `${path}/authorize`)).status, (await t.call("POST", `${path}/fail`)).status]).toEqual([409, 409]);
  });

  test("Authorize whose event the shop could not take (its database away): the card is charged, the order still unpaid, and the fake delivers the event again, as Stripe would, until the order is PAID, once (found by an attack)", async () => {
    const { orderId, intentId, path } = await challenged();
    expect(await answeredWhileTheShopCannotTakeIt(`${path}/authorize`)).toBe(503);
    expect((await t.deps.processor.retrieveIntent(intentId)).status).toBe("succeeded");
    expect(await order(orderId)).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });
    // Answering again finds nothing to answer: only the redelivery brings the payment to the order.
    expect((await t.call("POST", `${path}/authorize`)).status).toBe(409);
    expect(await redeliverFakeEvents(t.useCases, t.deps.processor, 0)).toEqual({ delivered: 1, failed: [] });
    expect(await order(orderId)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect(await redeliverFakeEvents(t.useCases, t.deps.processor, 0)).toEqual({ delivered: 0, failed: [] });
    expect((await auditEntries(t.deps.repos.audit, { action: "webhook.stripe" })).filter((entry) => entry.entityId === orderId)).toHaveLength(1);
  });

  test("an event the order cannot take holds up none of the others: each is delivered again on its own, the failed one a minute later", async () => {
    const [first, second] = [await challenged(), await challenged()];
    for (const { path } of [first, second]) expect(await answeredWhileTheShopCannotTakeIt(`${path}/authorize`)).toBe(503);
    const receive = t.useCases.receiveWebhookEvent;
    try {
      // The first order's event still fails (a bug, say); the second's goes through.
      t.useCases.receiveWebhookEvent = (event) =>
        event.meaning?.kind === "payment" && event.meaning.orderId === first.orderId ? Promise.reject(new Error("a bug")) : receive(event);
      const { delivered, failed } = await redeliverFakeEvents(t.useCases, t.deps.processor, 0);
      expect([delivered, failed.map((f) => f.error)]).toEqual([1, ["a bug"]]);
    } finally {
      t.useCases.receiveWebhookEvent = receive;
    }
    expect([(await order(first.orderId)).paymentStatus, (await order(second.orderId)).paymentStatus]).toEqual(["PENDING", "PAID"]);
    // Not due again at once, as Stripe backs off: a minute after its first failure.
    expect(await redeliverFakeEvents(t.useCases, t.deps.processor, 0)).toEqual({ delivered: 0, failed: [] });
    t.deps.clock.advance(60_000);
    expect(await redeliverFakeEvents(t.useCases, t.deps.processor, 0)).toEqual({ delivered: 1, failed: [] });
    expect((await order(first.orderId)).paymentStatus).toBe("PAID");
  });

  test("a Fail delivered late, after the customer began another attempt of the same intent, does not mark that attempt failed: it tells of the intent as it is now (found by an attack)", async () => {
    const { orderId, path } = await challenged();
    expect(await answeredWhileTheShopCannotTakeIt(`${path}/fail`)).toBe(503);
    // The customer tries again (the fail never reached the order) and the bank asks again.
    expect((await pay({ orderId, paymentMethodId: "pm_card_threeDSecure2Required" })).body.paymentIntent.status).toBe("requires_action");
    await redeliverFakeEvents(t.useCases, t.deps.processor, 0);
    expect(await order(orderId)).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });
    expect((await t.call("POST", `${path}/authorize`)).body.outcome).toBe("applied");
    expect(await order(orderId)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("Fail: the payment fails and the order stays payable; another card pays it", async () => {
    const { orderId, path } = await challenged();
    expect((await t.call("POST", `${path}/fail`)).body).toMatchObject({ paymentIntent: { status: "requires_payment_method" }, outcome: "applied" });
    expect(await order(orderId)).toMatchObject({ status: "PENDING", paymentStatus: "FAILED" });
    expect((await pay({ orderId, paymentMethodId: "pm_card_visa" })).body).toMatchObject({ success: true, order: { paymentStatus: "PAID" } });
  });

  test("two answers at once, or an answer and the customer's cancellation: one is the answer, the other a 409, never a 500 (found by an attack)", async () => {
    const { orderId, path } = await challenged();
    const answers = await Promise.all([t.call("POST", `${path}/authorize`), t.call("POST", `${path}/fail`)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    const [answered] = answers.filter((res) => res.status === 200);
    const paid = answered!.body.paymentIntent.status === "succeeded";
    expect(await order(orderId)).toMatchObject(paid ? { status: "CONFIRMED", paymentStatus: "PAID" } : { status: "PENDING", paymentStatus: "FAILED" });
    expect(answers.find((res) => res.status === 409)!.body.error).toMatch(
      /^This payment is (succeeded|requires_payment_method): there is no challenge to answer$/,
    );

    const another = await challenged();
    const [authorized, cancelled] = await Promise.all([
      t.call("POST", `${another.path}/authorize`),
      t.call("POST", `/api/orders/${another.orderId}/cancel`, { headers: me.headers }),
    ]);
    expect([200, 409]).toContain(authorized.status);
    expect([200, 400]).toContain(cancelled.status);
    // Whichever came first, the order and the processor agree: paid and kept, or cancelled and not charged.
    const now = await order(another.orderId);
    const intent = await t.deps.processor.retrieveIntent(another.intentId);
    if (now.status === "CANCELLED") expect(intent.status === "canceled" || now.paymentStatus === "REFUNDED").toBe(true);
    else expect([now.paymentStatus, intent.status]).toEqual(["PAID", "succeeded"]);
  });

  test("a second challenge of one intent failed is a second event: both failures are in the audit log", async () => {
    const { orderId, path } = await challenged();
    expect((await t.call("POST", `${path}/fail`)).body.outcome).toBe("applied");
    const again = (await pay({ orderId, paymentMethodId: "pm_card_threeDSecure2Required" })).body.paymentIntent;
    expect(new URL(again.nextAction.redirectUrl).pathname).toBe(path);
    // The order was FAILED already: unchanged, but told of all the same (it was "duplicate", and not told).
    expect((await t.call("POST", `${path}/fail`)).body.outcome).toBe("unchanged");
    const failures = await auditEntries(t.deps.repos.audit, { action: "webhook.stripe" });
    expect(failures.filter((entry) => entry.entityId === orderId)).toHaveLength(2);
    expect(await order(orderId)).toMatchObject({ status: "PENDING", paymentStatus: "FAILED" });
  });

  test("a browser's form gets a page back, with the way back to the shop it was given, and only a path on this shop", async () => {
    const { path } = await challenged();
    const res = await t.app.handle(new Request(`http://localhost${path}/authorize?return=%2Forders`, { method: "POST", headers: { accept: "text/html" } }));
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await res.text();
    expect(page).toContain("The payment was authorized.");
    expect(page).toContain('<a href="/orders">Back to the shop</a>');
    // A backslash is a slash to a browser: `/\evil.example` is `//evil.example` (found by an attack on the page).
    for (const elsewhere of ["https://evil.example/", "//evil.example/", "javascript:alert(1)", "/\\evil.example/", "/\\/evil.example/"]) {
      expect((await t.call("GET", `${path}?return=${encodeURIComponent(elsewhere)}`)).status).toBe(400);
    }
  });

  test("come back to with the Back button once answered, the page and its buttons say what the payment is now, with the way back, not the 409's JSON", async () => {
    const { path } = await challenged();
    const asBrowser = (method: string, to: string) =>
      t.app.handle(new Request(`http://localhost${to}?return=%2Forders`, { method, headers: { accept: "text/html" } }));
    await asBrowser("POST", `${path}/authorize`);
    for (const res of [await asBrowser("GET", path), await asBrowser("POST", `${path}/fail`), await asBrowser("POST", `${path}/authorize`)]) {
      expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      const page = await res.text();
      expect(page).toContain("There is no challenge to answer: the payment was authorized.");
      expect(page).toContain('<a href="/orders">Back to the shop</a>');
      expect(page).not.toContain("<form");
    }
    // To a client that is no browser, as before: 409.
    expect((await t.call("POST", `${path}/fail`)).status).toBe(409);
  });

  test("the challenge page and the page after it carry the headers of every page the shop serves: no other site's files, never in a frame", async () => {
    const { path } = await challenged();
    const pages = [
      await t.app.handle(new Request(`http://localhost${path}`)),
      await t.app.handle(new Request(`http://localhost${path}/fail`, { method: "POST", headers: { accept: "text/html" } })),
    ];
    for (const page of pages) {
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("the document says what the challenge routes answer: the page as text/html; to the bank's POST JSON, or to a browser text/html (found by the fuzz)", async () => {
    const { path } = await challenged();
    const doc = (await t.call("GET", "/api/openapi.json")).body;
    const answers = (route: string, method: string) => doc.paths[route][method].responses["200"].content;
    const page = await t.app.handle(new Request(`http://localhost${path}`));
    expect(page.headers.get("content-type")).toStartWith("text/html;");
    expect(answers("/api/fake-processor/challenge/{intentId}", "get")).toEqual({ "text/html": { schema: { type: "string" } } });
    const post = answers("/api/fake-processor/challenge/{intentId}/{answer}", "post");
    expect(post).toEqual({ "application/json": { schema: { $ref: "#/components/schemas/ChallengeAnswer" } }, "text/html": { schema: { type: "string" } } });
    const toBrowser = await t.app.handle(new Request(`http://localhost${path}/fail`, { method: "POST", headers: { accept: "text/html" } }));
    expect(toBrowser.headers.get("content-type")).toStartWith("text/html;");
  });

  test("an unknown intent is 404; a malformed one 400", async () => {
    expect((await t.call("GET", "/api/fake-processor/challenge/pi_unknown")).status).toBe(404);
    expect((await t.call("POST", "/api/fake-processor/challenge/pi_unknown/authorize")).status).toBe(404);
    expect((await t.call("GET", "/api/fake-processor/challenge/not-an-intent")).status).toBe(400);
  });

  test("the fake's books out of reach: the challenge page and its answers are 503 with Retry-After, not 'No such payment intent' (found by a review)", async () => {
    const { path } = await challenged();
    const lost = () => Promise.reject(databaseUnavailable(new Error("connect ECONNREFUSED 127.0.0.1:5432")));
    Object.assign(t.deps.processor, { retrieveIntent: lost, completeAction: lost });
    for (const [method, to] of [
      ["GET", path],
      ["POST", `${path}/authorize`],
      ["POST", `${path}/fail`],
    ] as const) {
      const res = await t.call(method, to);
      expect([res.status, res.headers.get("retry-after")]).toEqual([503, "2"]);
    }
  });

  test("with Stripe taking the payments there is no challenge page at all", async () => {
    const deps = createMemoryDeps();
    const stripeLike = createTestApp({ ...deps, payments: { ...deps.payments } });
    expect((await stripeLike.call("GET", "/api/fake-processor/challenge/pi_anything")).status).toBe(404);
  });
});

describe("Idempotency-Key (decisions §4)", () => {
  const withKey = (key: string, headers = me.headers) => ({ ...headers, "idempotency-key": key });

  test("a repeat with the same body replays the first answer, status and body, without paying again", async () => {
    const { orderId } = await anOrder();
    const body = { orderId, paymentMethodId: "pm_card_visa" };
    const first = await pay(body, withKey("pay-1"));
    const again = await pay(body, withKey("pay-1"));
    expect([again.status, again.body]).toEqual([first.status, first.body]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await auditEntries(t.deps.repos.audit, { action: "payment.succeeded" })).toHaveLength(1);
  });

  test("a decline is kept too: the same key gives the same 402; a new key tries again", async () => {
    const { orderId } = await anOrder();
    const declined = { orderId, paymentMethodId: "pm_card_chargeDeclined" };
    expect((await pay(declined, withKey("k-decline"))).status).toBe(402);
    const replay = await pay(declined, withKey("k-decline"));
    expect([replay.status, replay.body.details]).toEqual([402, { code: "card_declined", declineCode: "generic_decline" }]);
    expect(await auditEntries(t.deps.repos.audit, { action: "payment.failed" })).toHaveLength(1);
  });

  test("the same key with another body is 422; keys are each user's own", async () => {
    const { orderId } = await anOrder();
    await pay({ orderId, paymentMethodId: "pm_card_chargeDeclined" }, withKey("shared"));
    const other = await pay({ orderId, paymentMethodId: "pm_card_visa" }, withKey("shared"));
    expect([other.status, other.body.error]).toEqual([422, "This Idempotency-Key was used with a different request"]);
    const bob = await signedInAs(t);
    const bobs = await anOrder(bob);
    expect((await pay({ orderId: bobs.orderId, paymentMethodId: "pm_card_visa" }, withKey("shared", bob.headers))).body.success).toBe(true);
  });

  test("a 500 changed nothing, so it frees the key: the retry runs", async () => {
    const deps = createMemoryDeps();
    let down = true;
    const flaky = createTestApp({
      ...deps,
      payments: {
        ...deps.payments,
        confirmIntent: (...args: Parameters<typeof deps.payments.confirmIntent>) =>
          down ? Promise.reject(new Error("connection reset")) : deps.payments.confirmIntent(...args),
      },
    });
    await flaky.deps.repos.products.create(structuredClone(sauce));
    const shopper = await signedInAs(flaky);
    const { orderId } = await anOrder(shopper, flaky);
    expect((await pay({ orderId, paymentMethodId: "pm_card_visa" }, withKey("retry-me", shopper.headers), flaky)).status).toBe(500);
    down = false;
    expect((await pay({ orderId, paymentMethodId: "pm_card_visa" }, withKey("retry-me", shopper.headers), flaky)).body.success).toBe(true);
  });

  test("a refusal that asks to try again (another payment of the order is running) is not kept: the retry with the same key runs", async () => {
    const { orderId } = await anOrder();
    const body = { orderId, paymentMethodId: "pm_card_visa" };
    await t.deps.repos.orders.update(orderId, { paymentStartedAt: t.deps.clock.now(), updatedAt: t.deps.clock.now() });
    const busy = await pay(body, withKey("pay-later"));
    expect([busy.status, busy.body.error]).toEqual([409, "A payment of this order is being processed; try again shortly"]);
    await t.deps.repos.orders.update(orderId, { paymentStartedAt: null, updatedAt: t.deps.clock.now() });
    const retried = await pay(body, withKey("pay-later"));
    expect([retried.status, retried.body.success, retried.headers.get("idempotent-replayed")]).toEqual([200, true, null]);
  });

  test("a checkout repeated with its key gives the same order once: no second order, the stock taken once", async () => {
    const line = (await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 3 }, headers: me.headers })).body.cartItem.id;
    const checkout = () => t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: withKey("checkout-1") });
    const [first, again] = [await checkout(), await checkout()];
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(t.deps.state.orders.size).toBe(1);
    expect((await t.call("GET", `/api/products/${sauce.id}`)).body.data.inventory).toBe(7);
    expect(line).toBeString();
  });

  test("a key that is no printable ASCII, or too long, is 400", async () => {
    const { orderId } = await anOrder();
    for (const key of ["é-key", "x".repeat(256), "has space"]) {
      expect((await pay({ orderId, paymentMethodId: "pm_card_visa" }, withKey(key))).status).toBe(400);
    }
  });
});

describe("GET /api/payment/methods: how a page pays here (decisions §13)", () => {
  test("on the fake processor: its test methods by name, each with what it does, and each one POST /api/payment takes", async () => {
    const t = createTestApp();
    const answer = await t.call("GET", "/api/payment/methods");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      processor: "fake",
      publishableKey: null,
      testMethods: [
        { id: "pm_card_visa", name: "Visa", result: "succeeds" },
        { id: "pm_card_mastercard", name: "Mastercard", result: "succeeds" },
        { id: "pm_card_chargeDeclined", name: "Declined card", result: "declined" },
        { id: "pm_card_chargeDeclinedInsufficientFunds", name: "Declined card (insufficient funds)", result: "declined" },
        { id: "pm_card_threeDSecure2Required", name: "Card that asks for 3-D Secure", result: "3-D Secure" },
      ],
    });
  });

  test("with another processor (Stripe): no test methods, and the publishable key for Stripe.js when one is set", async () => {
    const deps = createMemoryDeps();
    const stripeLike = { ...deps.processor };
    const withKey = createTestApp({ ...deps, payments: stripeLike }, { stripePublishableKey: "pk_test_123" });
    expect((await withKey.call("GET", "/api/payment/methods")).body).toEqual({ processor: "stripe", publishableKey: "pk_test_123", testMethods: [] });
    const withoutKey = createTestApp({ ...deps, payments: stripeLike });
    expect((await withoutKey.call("GET", "/api/payment/methods")).body).toEqual({ processor: "stripe", publishableKey: null, testMethods: [] });
  });
});
