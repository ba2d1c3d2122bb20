import { describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { createPaymentLine, payOrder } from "../../src/application/payments/pay-order.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { receiveWebhookEvent } from "../../src/application/events/receive-webhook-event.ts";
import type { WebhookEvent } from "../../src/application/events/webhook-event.ts";
import type { PaymentGateway } from "../../src/application/ports/payments.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { PAYMENT_ATTEMPT_ABANDONED_MS, PAYMENT_WAITERS_PER_ORDER, type ProcessorEvent } from "../../src/domain/payment.ts";
import { REFUND_RETRY_MS } from "../../src/domain/refund.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { eventually } from "../support/eventually.ts";
import { auditEntries } from "../support/audit.ts";

const origin = { ipAddress: "203.0.113.9", userAgent: "payments-test" };
type RefundInput = Parameters<PaymentGateway["refund"]>[0];
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

async function anOrder(deps: MemoryDeps = createMemoryDeps(), quantity = 2) {
  const ada = aUser();
  const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity }, origin);
  const placed = await placeOrder(deps, DEFAULT_ORDER_SETTINGS, ada.id, { cartItemIds: [line.id], shippingAddress: texas }, origin);
  const stored = async () => (await deps.repos.orders.findById(placed.orderId))!;
  const pay = (paymentMethodId: string, userId = ada.id, d: MemoryDeps = deps) => payOrder(d, userId, { orderId: placed.orderId, paymentMethodId }, origin);
  return { deps, ada, sauce, placed, stored, pay, intentId: (await stored()).stripePaymentIntentId! };
}

/** The shop's deps with a processor whose confirmations wait until `release` is called. */
function heldProcessor(deps: MemoryDeps) {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const payments = {
    ...deps.payments,
    confirmIntent: async (...args: Parameters<typeof deps.payments.confirmIntent>) => (await gate, deps.payments.confirmIntent(...args)),
  };
  return { deps: { ...deps, payments } as MemoryDeps, release };
}

/**
 * Two payments of one order: the first held at the processor until the second has begun waiting
 * its turn (pausing as the shop does, in real time, where the fixed clock's pauses take none), then
 * let go. Both answers, as promises.
 */
async function oneAfterTheOther(order: Awaited<ReturnType<typeof anOrder>>, firstMethod: string, secondMethod: string) {
  const { deps, stored, pay } = order;
  const slow = heldProcessor(deps);
  const first = pay(firstMethod, undefined, slow.deps);
  await eventually(async () => expect((await stored()).paymentStartedAt).not.toBeNull());
  let pauses = 0;
  const clock = { ...deps.clock, sleep: (ms: number) => (pauses++, Bun.sleep(ms)) };
  const second = pay(secondMethod, undefined, { ...deps, clock } as MemoryDeps);
  await eventually(() => expect(pauses).toBeGreaterThanOrEqual(2));
  slow.release();
  return { first, second };
}

describe("paying an order (decisions §4)", () => {
  test("a card that pays: CONFIRMED and PAID, success, the intent and order in the answer, audited with the caller's origin", async () => {
    const { deps, ada, placed, stored, pay, intentId } = await anOrder();
    const result = await pay("pm_card_visa");
    expect(result).toEqual({
      success: true,
      paymentIntent: { id: intentId, status: "succeeded", clientSecret: expect.stringMatching(new RegExp(`^${intentId}_secret_`)), nextAction: null },
      order: { id: placed.orderId, orderNumber: placed.orderNumber, paymentStatus: "PAID", status: "CONFIRMED" },
    });
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentAttempts: 1 });
    expect(deps.processor.intents.get(intentId)?.status).toBe("succeeded");
    const [audit] = await auditEntries(deps.repos.audit, { action: "payment.succeeded" });
    expect(audit).toMatchObject({
      userId: ada.id,
      entityId: placed.orderId,
      ipAddress: "203.0.113.9",
      changes: { intentId, intentStatus: "succeeded", paymentMethodId: "pm_card_visa", attempt: 1 },
    });
  });

  test("the checks, in their order: unknown 404, another's 403, already paid, then not payable", async () => {
    const { deps, pay, placed } = await anOrder();
    expect((await domainErrorOf(payOrder(deps, "someone", { orderId: "z12345678901234567890123", paymentMethodId: "pm_card_visa" }, origin))).code).toBe(
      "order.not_found",
    );
    expect(await domainErrorOf(pay("pm_card_visa", "someone-else"))).toMatchObject({ code: "forbidden", message: "This order belongs to another user" });
    await pay("pm_card_visa");
    expect(await domainErrorOf(pay("pm_card_visa"))).toMatchObject({ code: "order.already_paid", message: "Order has already been paid" });
    await deps.repos.orders.update(placed.orderId, { status: "CANCELLED", paymentStatus: "PENDING", updatedAt: new Date() });
    expect(await domainErrorOf(pay("pm_card_visa"))).toMatchObject({ code: "order.not_payable", message: "Order cannot be paid in its current status" });
  });

  test("a declined card: payment FAILED, 402 with the processor's code and decline code; the order stays payable and a later card pays it", async () => {
    const { deps, stored, pay } = await anOrder();
    expect(await domainErrorOf(pay("pm_card_chargeDeclined"))).toMatchObject({
      code: "payment.declined",
      message: "Your card was declined.",
      details: { code: "card_declined", declineCode: "generic_decline" },
    });
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "FAILED", paymentAttempts: 1 });
    expect((await domainErrorOf(pay("pm_card_chargeDeclinedInsufficientFunds"))).details).toEqual({ code: "card_declined", declineCode: "insufficient_funds" });
    expect((await pay("pm_card_mastercard")).order).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    expect(await stored()).toMatchObject({ paymentAttempts: 3 });
    expect(
      (await auditEntries(deps.repos.audit, { action: "payment.failed" })).map((a) => (a.changes.decline as { declineCode: string }).declineCode).sort(),
    ).toEqual(["generic_decline", "insufficient_funds"]);
  });

  test("3-D Secure: requires_action leaves the order PENDING and hands back the client secret; the processor's later success confirms it", async () => {
    const { deps, placed, stored, pay, intentId } = await anOrder();
    const result = await pay("pm_card_threeDSecure2Required");
    expect(result).toMatchObject({
      success: false,
      paymentIntent: { id: intentId, status: "requires_action", clientSecret: expect.stringContaining("_secret_") },
      order: { status: "PENDING", paymentStatus: "PENDING" },
    });
    expect(await auditEntries(deps.repos.audit, { action: "payment.requires_action" })).toHaveLength(1);
    await deps.processor.completeAction(intentId, true);
    expect(
      await receiveWebhookEvent(
        deps,
        stripeEvent(
          "evt_3ds",
          "payment_intent.succeeded",
          { kind: "succeeded", processor: "stripe", intentId, amount: placed.amount, currency: "usd" },
          placed.orderId,
        ),
      ),
    ).toBe("applied");
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("a cancelled intent fails the payment and is let go; the next attempt makes a fresh intent and pays", async () => {
    const { deps, stored, pay, intentId } = await anOrder();
    await deps.processor.cancelIntent(intentId);
    expect(await pay("pm_card_visa")).toMatchObject({
      success: false,
      paymentIntent: { id: intentId, status: "canceled" },
      order: { paymentStatus: "FAILED", status: "PENDING" },
    });
    expect(await stored()).toMatchObject({ stripePaymentIntentId: null, paymentStatus: "FAILED" });
    const fresh = await pay("pm_card_visa");
    expect(fresh).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
    expect(fresh.paymentIntent.id).not.toBe(intentId);
    expect(deps.processor.intents.get(fresh.paymentIntent.id)).toMatchObject({ amount: (await stored()).total, metadata: { orderId: (await stored()).id } });
    expect((await stored()).stripePaymentIntentId).toBe(fresh.paymentIntent.id);
  });

  test("an unknown payment method or a processor that refused the call changes nothing but the attempt count: the order is payable again at once", async () => {
    const { deps, stored, pay } = await anOrder();
    expect(await domainErrorOf(pay("pm_card_bogus"))).toMatchObject({ code: "payment.invalid_method", message: "No such payment method: 'pm_card_bogus'" });
    const refused = new DomainError("payment.processor_failed", "Payment processing failed", { operation: "confirmIntent", outcomeUnknown: false });
    const down = { ...deps, payments: { ...deps.payments, confirmIntent: () => Promise.reject(refused) } };
    expect(await domainErrorOf(pay("pm_card_visa", undefined, down as MemoryDeps))).toBe(refused);
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", paymentAttempts: 2, paymentStartedAt: null });
    expect(await auditEntries(deps.repos.audit, { entityType: "order", action: "payment.failed" })).toEqual([]);
    expect((await pay("pm_card_visa")).success).toBe(true);
  });

  test("a processor that failed without saying what it did (it confirmed, its answer lost): the attempt stays open, a payment meanwhile is 409, and housekeeping settles it PAID from the intent after the grace time, charged once", async () => {
    const { deps, stored, pay, intentId } = await anOrder();
    const unknown = new DomainError("payment.processor_failed", "Payment processing failed", { operation: "confirmIntent", outcomeUnknown: true });
    const lost = {
      ...deps,
      payments: {
        ...deps.payments,
        confirmIntent: async (...args: Parameters<typeof deps.payments.confirmIntent>) => {
          await deps.payments.confirmIntent(...args);
          throw unknown;
        },
      },
    };
    expect(await domainErrorOf(pay("pm_card_visa", undefined, lost as MemoryDeps))).toBe(unknown);
    expect(deps.processor.intents.get(intentId)?.status).toBe("succeeded");
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", paymentAttempts: 1, paymentStartedAt: deps.clock.now() });
    expect((await domainErrorOf(pay("pm_card_visa"))).code).toBe("payment.in_progress");

    deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
    expect((await housekeeping.runOnce()).paymentsSettled).toBe(1);
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null });
    expect((await domainErrorOf(pay("pm_card_visa"))).code).toBe("order.already_paid");
  });

  test("payments of one order are serialized: a second one while the first is with the processor waits its turn, then finds the order paid (400)", async () => {
    const order = await anOrder();
    const { deps, stored, intentId } = order;
    const { first, second } = await oneAfterTheOther(order, "pm_card_visa", "pm_card_mastercard");
    expect((await first).success).toBe(true);
    expect(await domainErrorOf(second)).toMatchObject({ code: "order.already_paid", message: "Order has already been paid" });
    expect(deps.processor.intents.get(intentId)).toMatchObject({ status: "succeeded", paymentMethodId: "pm_card_visa" });
    expect(await stored()).toMatchObject({ paymentStatus: "PAID", paymentAttempts: 1, paymentStartedAt: null });
    expect(await auditEntries(deps.repos.audit, { entityType: "order", action: "payment.succeeded" })).toHaveLength(1);
  });

  test("at most PAYMENT_WAITERS_PER_ORDER payments of one order wait their turn in a process; the others are 409 at once (found by an attack: 300 waiters read the order 4,000 times)", async () => {
    const { deps, ada, placed, stored } = await anOrder();
    const line = createPaymentLine();
    const pay = (d: MemoryDeps) => payOrder(d, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin, undefined, line);
    const slow = heldProcessor(deps);
    const first = pay(slow.deps);
    await eventually(async () => expect((await stored()).paymentStartedAt).not.toBeNull());
    // Pausing in real time, as the shop does: those in the line are still waiting when the others are answered.
    const pausing = { ...deps, clock: { ...deps.clock, sleep: (ms: number) => Bun.sleep(ms) } } as MemoryDeps;
    const answered: string[] = [];
    const others = Array.from({ length: 9 }, () =>
      pay(pausing).then(
        () => "paid",
        (error: DomainError) => (answered.push(error.code), error.code),
      ),
    );
    const turnedAway = 9 - PAYMENT_WAITERS_PER_ORDER;
    await eventually(() => expect(answered).toEqual(Array(turnedAway).fill("payment.in_progress")));
    slow.release();
    expect((await first).success).toBe(true);
    expect((await Promise.all(others)).filter((code) => code === "order.already_paid")).toHaveLength(PAYMENT_WAITERS_PER_ORDER);
    // The line is left empty: the next payment of the order is answered as any.
    expect(await domainErrorOf(pay(pausing))).toMatchObject({ code: "order.already_paid" });
  });

  test("a second payment that waited its turn behind a declined card is 409, not a confirmation of its own: the customer sees the decline, and the next payment pays (found by a review)", async () => {
    const order = await anOrder();
    const { first, second } = await oneAfterTheOther(order, "pm_card_chargeDeclined", "pm_card_visa");
    expect((await domainErrorOf(first)).code).toBe("payment.declined");
    expect(await domainErrorOf(second)).toMatchObject({ code: "payment.in_progress" });
    expect(await order.stored()).toMatchObject({ paymentStatus: "FAILED", paymentAttempts: 1, paymentStartedAt: null });
    expect(await order.pay("pm_card_visa")).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
    expect(await order.stored()).toMatchObject({ paymentAttempts: 2, paymentStartedAt: null });
  });

  test("a second payment that waited its turn behind a 3-D Secure challenge is 409: the challenge is the customer's to finish, and a second confirmation would start it again (found by a review)", async () => {
    const order = await anOrder();
    const { deps, stored } = order;
    const { first, second } = await oneAfterTheOther(order, "pm_card_threeDSecure2Required", "pm_card_threeDSecure2Required");
    expect(await first).toMatchObject({ success: false, paymentIntent: { status: "requires_action" } });
    expect(await domainErrorOf(second)).toMatchObject({ code: "payment.in_progress" });
    expect(await stored()).toMatchObject({ paymentStatus: "PENDING", paymentAttempts: 1, paymentStartedAt: null });
    expect(await auditEntries(deps.repos.audit, { entityType: "order", action: "payment.requires_action" })).toHaveLength(1);
  });

  test("no connection waits on the processor, and no queue forever: a second payment whose turn has not come within its wait is 409", async () => {
    const { deps, stored, pay } = await anOrder();
    const slow = heldProcessor(deps);
    const first = pay("pm_card_visa", undefined, slow.deps);
    await eventually(async () => expect((await stored()).paymentStartedAt).not.toBeNull());
    expect(await domainErrorOf(pay("pm_card_visa"))).toMatchObject({
      code: "payment.in_progress",
      message: "A payment of this order is being processed; try again shortly",
    });
    slow.release();
    expect((await first).success).toBe(true);
    expect(await domainErrorOf(pay("pm_card_visa"))).toMatchObject({ code: "order.already_paid" });
  });

  test("an attempt that outlasted the grace time and then failed at the processor leaves alone the newer attempt that took it over: that one's charge makes the order PAID", async () => {
    const { deps, stored, pay } = await anOrder();
    const [slow, newer] = [heldProcessor(deps), heldProcessor(deps)];
    const first = pay("pm_card_bogus", undefined, slow.deps);
    await eventually(async () => expect((await stored()).paymentStartedAt).not.toBeNull());
    deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    const second = pay("pm_card_visa", undefined, newer.deps);
    await eventually(async () => expect((await stored()).paymentStartedAt).toEqual(deps.clock.now()));

    slow.release();
    expect((await domainErrorOf(first)).code).toBe("payment.invalid_method");
    expect((await stored()).paymentStartedAt).toEqual(deps.clock.now());
    newer.release();
    expect(await second).toMatchObject({ success: true, order: { status: "CONFIRMED", paymentStatus: "PAID" } });
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null, paymentAttempts: 1 });
    expect(await auditEntries(deps.repos.audit, { entityType: "order", action: "payment.succeeded" })).toHaveLength(1);
  });

  test("an order whose checkout has not stored its payment intent yet cannot be paid yet (409): it would get a second intent", async () => {
    const { deps, placed, pay } = await anOrder();
    await deps.repos.orders.update(placed.orderId, { stripePaymentIntentId: null, updatedAt: new Date() });
    expect((await domainErrorOf(pay("pm_card_visa"))).code).toBe("payment.in_progress");
    expect(deps.processor.intents.size).toBe(1);
  });

  test("a crash after the processor confirmed: once the attempt counts as abandoned, the retry replays the processor's answer (same key)", async () => {
    const { deps, stored, pay, intentId } = await anOrder();
    const confirmations: string[] = [];
    let crash = true;
    const flaky = {
      ...deps,
      payments: {
        ...deps.payments,
        confirmIntent: (id: string, pm: string, key: string) => (confirmations.push(key), deps.payments.confirmIntent(id, pm, key)),
      },
      ids: { next: () => (crash ? ((crash = false), throwing()) : deps.ids.next()) },
    };
    expect(await pay("pm_card_visa", undefined, flaky as MemoryDeps).catch((e: Error) => e.message)).toBe("the database went away");
    expect([deps.processor.intents.get(intentId)?.status, (await stored()).paymentStatus]).toEqual(["succeeded", "PENDING"]);
    expect((await domainErrorOf(pay("pm_card_visa", undefined, flaky as MemoryDeps))).code).toBe("payment.in_progress");
    deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    expect((await pay("pm_card_visa", undefined, flaky as MemoryDeps)).success).toBe(true);
    expect(confirmations).toHaveLength(2);
    expect(new Set(confirmations).size).toBe(1);
  });

  test("an abandoned attempt the processor had charged, taken over with another card: the audit names the card that was charged (found by an attack)", async () => {
    const { deps, stored, pay, placed } = await anOrder();
    const crashing = { ...deps, ids: { next: throwing } };
    expect(await pay("pm_card_visa", undefined, crashing as MemoryDeps).catch((e: Error) => e.message)).toBe("the database went away");
    deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    expect((await pay("pm_card_mastercard")).success).toBe(true);
    expect(await stored()).toMatchObject({ paymentStatus: "PAID" });
    const [succeeded] = await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" });
    expect(succeeded?.changes).toMatchObject({ paymentMethodId: "pm_card_visa" });
  });

  test("an abandoned attempt the processor had declined, taken over with another card: that card is confirmed and pays, not answered with the first card's decline", async () => {
    const { deps, stored, pay, placed, intentId } = await anOrder();
    const crashing = { ...deps, ids: { next: throwing } };
    expect(await pay("pm_card_chargeDeclined", undefined, crashing as MemoryDeps).catch((e: Error) => e.message)).toBe("the database went away");
    expect((await stored()).paymentStartedAt).not.toBeNull();
    deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    expect((await pay("pm_card_visa")).success).toBe(true);
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentAttempts: 1 });
    expect(deps.processor.intents.get(intentId)).toMatchObject({ status: "succeeded", paymentMethodId: "pm_card_visa" });
    const [succeeded] = await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" });
    expect(succeeded?.changes).toMatchObject({ paymentMethodId: "pm_card_visa", attempt: 1 });
  });
});

describe("the grace time (HOUSEKEEPING_GRACE_SECONDS) is the shop's one measure of an abandoned attempt", () => {
  test("with a grace of 5 seconds, an attempt left 5 seconds is taken over by the next payment, keeping its number and keys", async () => {
    const { deps, stored, placed, ada } = await anOrder();
    await deps.repos.orders.update(placed.orderId, { paymentAttempts: 1, paymentStartedAt: deps.clock.now(), updatedAt: deps.clock.now() });
    const pay = () => payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin, 5_000);
    deps.clock.advance(4_999);
    expect((await domainErrorOf(pay())).code).toBe("payment.in_progress");
    deps.clock.advance(1);
    expect((await pay()).success).toBe(true);
    expect(await stored()).toMatchObject({ paymentStatus: "PAID", paymentAttempts: 1, paymentStartedAt: null });
  });
});

function throwing(): never {
  throw new Error("the database went away");
}

function stripeEvent(eventId: string, type: string, payment: ProcessorEvent | null, orderId: string | null = null): WebhookEvent {
  return { provider: "stripe", eventId, type, meaning: payment ? { kind: "payment", event: payment, orderId } : null };
}

describe("payment events from the processor (decisions §8)", () => {
  test("an unpaid order staff moved on keeps its status when its payment arrives; a second intent's money for a paid order is refunded", async () => {
    const { deps, placed, stored, intentId } = await anOrder();
    await deps.repos.orders.update(placed.orderId, { status: "SHIPPED", trackingNumber: "1Z-FIRST", updatedAt: new Date() });
    await deps.processor.confirmIntent(intentId, "pm_card_visa", "late-3ds");
    const paid = { kind: "succeeded" as const, processor: "stripe", intentId, amount: placed.amount, currency: "usd" };
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_a", "payment_intent.succeeded", paid, placed.orderId))).toBe("applied");
    expect(await stored()).toMatchObject({ status: "SHIPPED", paymentStatus: "PAID", trackingNumber: "1Z-FIRST" });

    const second = await deps.processor.createIntent({
      amount: placed.amount,
      currency: "usd",
      metadata: { orderId: placed.orderId },
      idempotencyKey: "a-second-intent",
    });
    await deps.processor.confirmIntent(second.id, "pm_card_visa", "second-charge");
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_b", "payment_intent.succeeded", { ...paid, intentId: second.id }, placed.orderId))).toBe("flagged");
    expect([...deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId: second.id, amount: placed.amount })]);
    expect(await stored()).toMatchObject({
      status: "SHIPPED",
      paymentStatus: "PAID",
      stripePaymentIntentId: intentId,
      paidVia: "stripe",
      paidReference: intentId,
    });
    const audits = await auditEntries(deps.repos.audit, { action: "webhook.stripe", entityId: placed.orderId });
    expect(audits.find((entry) => entry.changes.eventId === "evt_b")?.changes).toMatchObject({
      eventId: "evt_b",
      flagged: true,
      ignored: `paid again through stripe (${second.id}), after stripe (${intentId}): refunded`,
    });

    // The same payment heard again under another event (as a stop that finds the intent paid hears
    // it too): one flag and one refund for it, not two (found by a review).
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_c", "charge.succeeded", { ...paid, intentId: second.id }, placed.orderId))).toBe("unchanged");
    expect(deps.processor.refunds.size).toBe(1);
    const again = await auditEntries(deps.repos.audit, { action: "webhook.stripe", entityId: placed.orderId });
    expect(again.filter((entry) => entry.changes.flagged).map((entry) => entry.changes.eventId)).toEqual(["evt_b"]);
    expect(again.find((entry) => entry.changes.eventId === "evt_c")?.changes.ignored).toBe(
      `paid again through stripe (${second.id}), after stripe (${intentId}): refunded; heard before, its refund recorded then`,
    );
  });

  test("applied once: a redelivery is a duplicate, with one state change and one audit entry", async () => {
    const { deps, placed, stored, intentId } = await anOrder();
    await deps.processor.confirmIntent(intentId, "pm_card_visa", "client-side");
    const event = stripeEvent(
      "evt_1",
      "payment_intent.succeeded",
      { kind: "succeeded", processor: "stripe", intentId, amount: placed.amount, currency: "usd" },
      placed.orderId,
    );
    expect(await receiveWebhookEvent(deps, event)).toBe("applied");
    expect(await receiveWebhookEvent(deps, event)).toBe("duplicate");
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    const audits = await auditEntries(deps.repos.audit, { action: "webhook.stripe" });
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      userId: null,
      entityId: placed.orderId,
      changes: { eventId: "evt_1", type: "payment_intent.succeeded", from: { status: "PENDING" }, to: { status: "CONFIRMED", paymentStatus: "PAID" } },
    });
  });

  test("the order is found by the intent when the metadata names none; an event for no order of ours is kept (never applied twice) and logged", async () => {
    const { deps, stored, intentId } = await anOrder();
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_2", "payment_intent.payment_failed", { kind: "failed", intentId }))).toBe("applied");
    expect((await stored()).paymentStatus).toBe("FAILED");
    const stranger = stripeEvent("evt_3", "payment_intent.succeeded", {
      kind: "succeeded",
      processor: "stripe",
      intentId: "pi_not_ours",
      amount: 100,
      currency: "usd",
    });
    expect(await receiveWebhookEvent(deps, stranger)).toBe("not_found");
    expect(await receiveWebhookEvent(deps, stranger)).toBe("duplicate");
  });

  test("types the shop does not act on are acknowledged and dropped, recording nothing", async () => {
    const { deps } = await anOrder();
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_4", "customer.created", null))).toBe("ignored");
    expect(deps.state.webhookEvents.size).toBe(0);
  });

  test("a full refund ends the order REFUNDED and puts the goods back; a partial one changes nothing but is audited", async () => {
    const { deps, placed, stored, pay, sauce, intentId } = await anOrder();
    await pay("pm_card_visa");
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_5", "charge.refunded", { kind: "refunded", intentId, fully: false }))).toBe("unchanged");
    expect((await stored()).status).toBe("CONFIRMED");
    expect(await receiveWebhookEvent(deps, stripeEvent("evt_6", "charge.refunded", { kind: "refunded", intentId, fully: true }, placed.orderId))).toBe(
      "applied",
    );
    expect(await stored()).toMatchObject({ status: "REFUNDED", paymentStatus: "REFUNDED" });
    expect((await deps.repos.products.findById(sauce.id))?.inventory).toBe(10);
    expect((await auditEntries(deps.repos.audit, { action: "webhook.stripe" })).map((a) => String(a.changes.ignored ?? "applied")).sort()).toEqual([
      "a partial refund leaves the order as it is",
      "applied",
    ]);
  });

  test("money for an order that had already ended goes back, asked after the event's transaction; refused, the event is applied all the same and its refund is due; a redelivery refunds nothing; housekeeping asks again under the same key", async () => {
    const { deps, placed, stored, intentId } = await anOrder();
    await deps.repos.orders.update(placed.orderId, { status: "CANCELLED", updatedAt: new Date() });
    await deps.processor.confirmIntent(intentId, "pm_card_visa", "late");
    const event = stripeEvent(
      "evt_7",
      "payment_intent.succeeded",
      { kind: "succeeded", processor: "stripe", intentId, amount: placed.amount, currency: "usd" },
      placed.orderId,
    );
    const processor = { down: true, asked: [] as string[] };
    const refund = async (input: RefundInput) => {
      processor.asked.push(input.idempotencyKey);
      // Asked inside a transaction, the call would hold a connection (and the order's lock) while it waits: refused here.
      await deps.uow.read(async () => null);
      if (processor.down) throw new DomainError("payment.processor_failed", "Payment processing failed");
      return deps.payments.refund(input);
    };
    const flaky = { ...deps, payments: { ...deps.payments, refund } };
    expect(await receiveWebhookEvent(flaky, event)).toBe("applied");
    expect(await stored()).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(await deps.repos.refunds.listDue()).toEqual([
      expect.objectContaining({
        orderId: placed.orderId,
        intentId,
        idempotencyKey: `late-payment-${intentId}`,
        reason: "late_payment",
        amount: placed.amount,
        lastError: "Payment processing failed",
      }),
    ]);
    expect(await receiveWebhookEvent(flaky, event)).toBe("duplicate");
    expect(processor.asked).toHaveLength(1);

    processor.down = false;
    deps.clock.advance(REFUND_RETRY_MS);
    expect(await createHousekeeping(flaky, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }).runOnce()).toMatchObject({ refundsMade: 1, refundsDue: 0 });
    expect(processor.asked).toEqual([`late-payment-${intentId}`, `late-payment-${intentId}`]);
    expect([...deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId, amount: (await stored()).total })]);
    expect(await stored()).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
    expect(await deps.repos.refunds.listDue()).toEqual([]);
    expect((await auditEntries(deps.repos.audit, { action: "payment.refunded", entityId: placed.orderId }))[0]?.changes).toMatchObject({
      intentId,
      reason: "late_payment",
      from: "REFUNDED",
      to: "REFUNDED",
    });
  });

  test("an order ended while its payment was with the processor: the money goes back, asked once the payment's last transaction is done", async () => {
    const { deps, placed, stored, pay } = await anOrder();
    const refund = async (input: RefundInput) => (await deps.uow.read(async () => null), deps.payments.refund(input));
    const endedMeanwhile = {
      ...deps,
      payments: {
        ...deps.payments,
        refund,
        confirmIntent: async (...args: Parameters<typeof deps.payments.confirmIntent>) => {
          await deps.repos.orders.update(placed.orderId, { status: "CANCELLED", updatedAt: new Date() });
          return deps.payments.confirmIntent(...args);
        },
      },
    };
    expect(await pay("pm_card_visa", undefined, endedMeanwhile as MemoryDeps)).toMatchObject({
      success: false,
      order: { status: "CANCELLED", paymentStatus: "REFUNDED" },
    });
    const intentId = (await stored()).stripePaymentIntentId!;
    expect([...deps.processor.refunds.values()]).toEqual([expect.objectContaining({ intentId, amount: placed.amount })]);
    expect(await deps.repos.refunds.listOfOrder(placed.orderId)).toEqual([
      expect.objectContaining({ idempotencyKey: `late-payment-${intentId}`, confirmedAt: expect.any(Date) }),
    ]);
  });

  test("the processor's webhook applied while the payment was with it: the payment's own outcome finds the order paid and changes nothing twice", async () => {
    const { deps, placed, stored, pay } = await anOrder();
    const paidFirst = {
      ...deps,
      payments: {
        ...deps.payments,
        confirmIntent: async (...args: Parameters<typeof deps.payments.confirmIntent>) => {
          const intent = await deps.payments.confirmIntent(...args);
          const paid = { kind: "succeeded" as const, processor: "stripe", intentId: intent.id, amount: intent.amount, currency: "usd" };
          expect(await receiveWebhookEvent(deps, stripeEvent("evt_first", "payment_intent.succeeded", paid, placed.orderId))).toBe("applied");
          return intent;
        },
      },
    };
    expect(await pay("pm_card_visa", undefined, paidFirst as MemoryDeps)).toMatchObject({
      success: true,
      order: { status: "CONFIRMED", paymentStatus: "PAID" },
    });
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null, paymentAttempts: 1 });
    const [webhook] = await auditEntries(deps.repos.audit, { action: "webhook.stripe" });
    expect(webhook?.changes).toMatchObject({ from: { status: "PENDING", paymentStatus: "PENDING" }, to: { status: "CONFIRMED", paymentStatus: "PAID" } });
    const [payment] = await auditEntries(deps.repos.audit, { action: "payment.succeeded" });
    expect(payment?.changes).toMatchObject({ from: { status: "CONFIRMED", paymentStatus: "PAID" }, ignored: "payment is already PAID" });
  });
});
