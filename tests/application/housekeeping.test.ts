import { describe, expect, test } from "bun:test";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { register } from "../../src/application/auth/register.ts";
import { signInWithPassword } from "../../src/application/auth/sign-in-with-password.ts";
import { signOut } from "../../src/application/auth/sign-out.ts";
import { claimIdempotencyKey, keepIdempotentResponse } from "../../src/application/idempotency/idempotency-keys.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { changeOrderStatus } from "../../src/application/orders/change-order-status.ts";
import { receiveWebhookEvent } from "../../src/application/events/receive-webhook-event.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import type { PaymentGateway } from "../../src/application/ports/payments.ts";
import { PURGE_BATCH, createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { DomainError, databaseUnavailable } from "../../src/domain/errors.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import { REFUND_ATTEMPT_LEASE_MS, REFUND_RETRY_MS } from "../../src/domain/refund.ts";
import { newSession } from "../../src/domain/session.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { eventually } from "../support/eventually.ts";
import { auditEntries } from "../support/audit.ts";

test("housekeeping deletes the sessions that have ended, signed out or expired, and keeps the live ones working", async () => {
  const deps = createMemoryDeps();
  const user = await register(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN, "https://shop.example.com");
  const signIn = () => signInWithPassword(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN);
  const [out, old] = [await signIn(), await signIn()];
  await signOut(deps, { id: out.id, userId: user.id }, false, NO_ORIGIN);
  deps.clock.advance(29 * 24 * 3600 * 1000);
  const live = await signIn();
  deps.clock.advance(2 * 24 * 3600 * 1000);
  const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  expect(await housekeeping.runOnce()).toEqual({
    paymentsSettled: 0,
    intentsStored: 0,
    checkoutsUndone: 0,
    intentsStopped: 0,
    ordersExpired: 0,
    sessionsPurged: 2,
    idempotencyKeysPurged: 0,
    refundsMade: 0,
    refundsDue: 0,
  });
  expect([...deps.state.sessions.keys()]).toEqual([live.id]);
  expect(await createAccessResolver(deps).resolve({ sub: user.id, sid: live.id })).not.toBeNull();
  expect(await createAccessResolver(deps).resolve({ sub: user.id, sid: old.id })).toBeNull();
});

test("housekeeping deletes idempotency keys past their 24 hours, and only those", async () => {
  const deps = createMemoryDeps();
  const user = await register(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN, "https://shop.example.com");
  const old = await claimIdempotencyKey(deps, user.id, "old", "A");
  await keepIdempotentResponse(deps, user.id, "old", (old as { claimedAt: Date }).claimedAt, { status: 200, body: {} });
  deps.clock.advance(23 * 3600 * 1000);
  const young = await claimIdempotencyKey(deps, user.id, "young", "A");
  await keepIdempotentResponse(deps, user.id, "young", (young as { claimedAt: Date }).claimedAt, { status: 200, body: {} });
  deps.clock.advance(3600 * 1000);
  const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  expect((await housekeeping.runOnce()).idempotencyKeysPurged).toBe(1);
  expect(await claimIdempotencyKey(deps, user.id, "young", "A")).toEqual({ kind: "replay", response: { status: 200, body: {} } });
  expect(await claimIdempotencyKey(deps, user.id, "old", "B")).toMatchObject({ kind: "claimed" });
});

test("a backlog of ended sessions bigger than a batch is purged whole in one run, at most PURGE_BATCH a transaction, each committed alone", async () => {
  const deps = createMemoryDeps();
  const user = aUser();
  await deps.repos.users.create(user);
  const backlog = 2 * PURGE_BATCH + 1;
  for (let n = 0; n < backlog; n++) await deps.repos.sessions.create(newSession(`ended-${n}`, user.id, deps.clock.now()));
  deps.clock.advance(31 * 24 * 3600 * 1000);
  await deps.repos.sessions.create(newSession("live", user.id, deps.clock.now()));
  const purgedPerTransaction: number[] = [];
  const { transaction } = deps.uow;
  deps.uow.transaction = async (work) => {
    const before = deps.state.sessions.size;
    const result = await transaction(work);
    purgedPerTransaction.push(before - deps.state.sessions.size);
    return result;
  };
  const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  expect((await housekeeping.runOnce()).sessionsPurged).toBe(backlog);
  expect([...deps.state.sessions.keys()]).toEqual(["live"]);
  expect(purgedPerTransaction.filter((purged) => purged > 0)).toEqual([PURGE_BATCH, PURGE_BATCH, 1]);
});

test("the access cache forgets what it has not used for 30 seconds, so it never grows past the callers of the last half minute", async () => {
  const deps = createMemoryDeps();
  const access = createAccessResolver(deps);
  for (let i = 0; i < 1_500; i++) {
    await access.resolve({ sub: `user-${i}`, sid: `session-${i}` });
    deps.clock.advance(100);
  }
  // 1,500 callers over 150 seconds; at most the last ~1,000 can still be cached (pruned every 1,000 lookups).
  expect(access.stats().sessions).toBeLessThanOrEqual(1_000);
  expect(access.stats().sessions).toBeGreaterThan(0);
});

const admin = { userId: "admin-1", role: "ADMIN" as const, permissions: new Set(DEFAULT_ROLE_PERMISSIONS.ADMIN) };

/** One sauce ordered by the customer and paid with a card: the order's id. */
async function orderedAndPaid(deps: MemoryDeps, userId: string, productId: string): Promise<string> {
  const line = await addToCart(deps, userId, { productId, quantity: 1 }, NO_ORIGIN);
  const { orderId } = await placeOrder(
    deps,
    DEFAULT_ORDER_SETTINGS,
    userId,
    { cartItemIds: [line.id], shippingAddress: { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" } },
    NO_ORIGIN,
  );
  await payOrder(deps, userId, { orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
  return orderId;
}

/** A paid order, and a processor that refuses refunds while `down`, noting every key it is asked with. */
async function aPaidOrder() {
  const deps = createMemoryDeps();
  const ada = aUser();
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const orderId = await orderedAndPaid(deps, ada.id, sauce.id);
  const processor = { down: true, asked: [] as string[] };
  const refund = async (input: Parameters<PaymentGateway["refund"]>[0]) => {
    processor.asked.push(input.idempotencyKey);
    // Asked inside a transaction, the call would hold a connection (and a lock) while it waits: refused here.
    await deps.uow.read(async () => null);
    if (processor.down) throw new DomainError("payment.processor_failed", "Payment processing failed");
    return deps.payments.refund(input);
  };
  const flaky: MemoryDeps = { ...deps, payments: { ...deps.payments, refund } };
  const housekeeping = createHousekeeping(flaky, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  const order = async () => (await deps.repos.orders.findById(orderId))!;
  return { deps, flaky, processor, housekeeping, orderId, order };
}

test("a refund the processor refused stays due, and housekeeping asks again under the same key until the processor answers; then the payment is REFUNDED, once", async () => {
  const { deps, flaky, processor, housekeeping, orderId, order } = await aPaidOrder();
  expect(await changeOrderStatus(flaky, admin, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN)).toMatchObject({
    order: { status: "CANCELLED", paymentStatus: "PAID" },
    refund: "due",
  });
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 0 });

  deps.clock.advance(REFUND_RETRY_MS);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 1 });
  expect(await deps.repos.refunds.listDue()).toEqual([expect.objectContaining({ orderId, attempts: 2, lastError: "Payment processing failed" })]);
  expect((await order()).paymentStatus).toBe("PAID");

  processor.down = false;
  deps.clock.advance(REFUND_RETRY_MS);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 1, refundsDue: 0 });
  expect(await order()).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
  expect(await deps.repos.refunds.listDue()).toEqual([]);
  expect(processor.asked).toEqual([`refund-${orderId}`, `refund-${orderId}`, `refund-${orderId}`]);
  expect([...deps.processor.refunds.values()].map((r) => r.amount)).toEqual([(await order()).total]);

  deps.clock.advance(REFUND_RETRY_MS);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 0 });
  expect(processor.asked).toHaveLength(3);
});

test("a refund whose process died while asking is asked again by housekeeping once its attempt's time is over, not before", async () => {
  const { deps, processor, housekeeping, orderId, order } = await aPaidOrder();
  processor.down = false;
  // The move commits, and its refund waits on a processor that never answers: as if the process died there.
  const dying = { ...deps, payments: { ...deps.payments, refund: () => new Promise<never>(() => {}) } };
  void changeOrderStatus(dying, admin, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN);
  await eventually(async () => expect(await deps.repos.refunds.listDue()).toHaveLength(1));
  expect(await order()).toMatchObject({ status: "CANCELLED", paymentStatus: "PAID" });
  deps.clock.advance(REFUND_ATTEMPT_LEASE_MS - 1);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 0 });
  expect(processor.asked).toEqual([]);
  deps.clock.advance(1);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 1, refundsDue: 0 });
  expect(processor.asked).toEqual([`refund-${orderId}`]);
  expect(await order()).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
});

test("a refund due, then the payment refunded in full at the processor (its dashboard, heard by webhook): the refund is confirmed, and housekeeping asks the processor nothing more", async () => {
  const { deps, flaky, processor, housekeeping, orderId, order } = await aPaidOrder();
  expect(await changeOrderStatus(flaky, admin, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN)).toMatchObject({ refund: "due" });
  const intentId = (await order()).stripePaymentIntentId!;
  await deps.processor.refund({ intentId, idempotencyKey: "from-the-dashboard" });
  const webhook = {
    provider: "stripe" as const,
    eventId: "evt_refunded_from_dashboard",
    type: "charge.refunded",
    meaning: { kind: "payment" as const, event: { kind: "refunded" as const, intentId, fully: true }, orderId },
  };
  expect(await receiveWebhookEvent(deps, webhook)).toBe("applied");
  expect(await order()).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED" });
  expect(await deps.repos.refunds.listOfOrder(orderId)).toEqual([expect.objectContaining({ confirmedAt: deps.clock.now() })]);
  expect(await deps.repos.refunds.listDue()).toEqual([]);

  processor.down = false;
  deps.clock.advance(REFUND_RETRY_MS);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 0 });
  expect(processor.asked).toEqual([`refund-${orderId}`]);
  expect(deps.processor.refunds.size).toBe(1);
});

test("more refunds due than one claim takes (20): one housekeeping run asks for every one of them", async () => {
  const deps = createMemoryDeps();
  const ada = aUser();
  const sauce = aProduct({ price: 1299, inventory: 100 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const asked: string[] = [];
  let down = true;
  const refund = async (input: Parameters<PaymentGateway["refund"]>[0]) => {
    asked.push(input.idempotencyKey);
    if (down) throw new DomainError("payment.processor_failed", "Payment processing failed");
    return deps.payments.refund(input);
  };
  const flaky: MemoryDeps = { ...deps, payments: { ...deps.payments, refund } };
  const orderIds: string[] = [];
  for (let i = 0; i < 25; i++) {
    const orderId = await orderedAndPaid(deps, ada.id, sauce.id);
    await changeOrderStatus(flaky, admin, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN);
    orderIds.push(orderId);
  }
  expect(await deps.repos.refunds.listDue()).toHaveLength(25);
  asked.length = 0;
  down = false;
  deps.clock.advance(REFUND_RETRY_MS);
  expect(await createHousekeeping(flaky, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }).runOnce()).toMatchObject({ refundsMade: 25, refundsDue: 0 });
  expect(asked.sort()).toEqual(orderIds.map((id) => `refund-${id}`).sort());
  expect(await deps.repos.refunds.listDue()).toEqual([]);
  for (const orderId of orderIds) expect((await deps.repos.orders.findById(orderId))?.paymentStatus).toBe("REFUNDED");
});

/** 20 paid orders (a claim's worth) and a processor that takes 10 s to fail each call, as Stripe timing out does. */
async function aClaimOfOrdersAndASlowProcessor() {
  const deps = createMemoryDeps();
  const ada = aUser();
  const sauce = aProduct({ price: 1299, inventory: 100 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const orderIds: string[] = [];
  for (let i = 0; i < 20; i++) orderIds.push(await orderedAndPaid(deps, ada.id, sauce.id));
  const asked: string[] = [];
  const slowToFail = async (what: string) => {
    asked.push(what);
    deps.clock.advance(10_000);
    // Past two asks of each, the run would never have ended: the database's refusal ends it here.
    if (asked.length > 40) throw databaseUnavailable(new Error("the run went round again"));
    throw new DomainError("payment.processor_failed", "Payment processing failed");
  };
  const slow: MemoryDeps = {
    ...deps,
    payments: { ...deps.payments, refund: (input) => slowToFail(input.idempotencyKey), cancelIntent: (intentId) => slowToFail(intentId) },
  };
  return { deps, slow, orderIds, asked, housekeeping: createHousekeeping(slow, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }) };
}

test("a run whose refunds take the processor longer to fail than their retry time asks each once, and ends (found by a review)", async () => {
  const { deps, slow, orderIds, asked, housekeeping } = await aClaimOfOrdersAndASlowProcessor();
  for (const orderId of orderIds) await changeOrderStatus(slow, admin, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN);
  asked.length = 0;
  deps.clock.advance(REFUND_RETRY_MS);
  expect(await housekeeping.runOnce()).toMatchObject({ refundsMade: 0, refundsDue: 20 });
  expect(asked.sort()).toEqual(orderIds.map((id) => `refund-${id}`).sort());
});

test("a run whose intents take the processor longer to fail than their lease tries each once, and ends (found by a review)", async () => {
  const { deps, orderIds, asked, housekeeping } = await aClaimOfOrdersAndASlowProcessor();
  for (const orderId of orderIds) await deps.uow.write((db) => db.orders.markIntentStopDue(orderId, deps.clock.now()));
  expect(await housekeeping.runOnce()).toMatchObject({ intentsStopped: 0 });
  expect(asked).toHaveLength(20);
  expect(new Set(asked).size).toBe(20);
});

const GRACE_MS = 120_000;
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

/** A shopper's order of 2 × $12.99 (10 in stock), placed, with its housekeeping and ways to pay it. */
async function anOrder(deps: MemoryDeps = createMemoryDeps()) {
  const ada = aUser();
  const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
  const placed = await placeOrder(deps, DEFAULT_ORDER_SETTINGS, ada.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
  const stored = async () => (await deps.repos.orders.findById(placed.orderId))!;
  const confirmations: string[] = [];
  const counting = {
    ...deps,
    payments: { ...deps.payments, confirmIntent: (id: string, pm: string, key: string) => (confirmations.push(key), deps.payments.confirmIntent(id, pm, key)) },
  };
  const pay = (paymentMethodId: string, d: MemoryDeps = counting as MemoryDeps) => payOrder(d, ada.id, { orderId: placed.orderId, paymentMethodId }, NO_ORIGIN);
  /**
   * A payment whose process dies once the processor has confirmed: its answer never comes back, so
   * nothing after the confirmation runs (the attempt stays marked, its outcome unwritten).
   */
  async function payAndDie(paymentMethodId: string) {
    const dying = {
      ...counting,
      payments: { ...counting.payments, confirmIntent: async (...args: [string, string, string]) => (await counting.payments.confirmIntent(...args), never()) },
    };
    void pay(paymentMethodId, dying as MemoryDeps);
    await eventually(() => expect(confirmations.length).toBeGreaterThan(0));
    confirmations.length = 0;
    expect((await stored()).paymentStartedAt).not.toBeNull();
  }
  const housekeeping = (d: MemoryDeps = deps) => createHousekeeping(d, { intervalMs: 60_000, orderPaymentTtlMinutes: 60, graceMs: GRACE_MS });
  return { deps, ada, sauce, placed, stored, pay, payAndDie, confirmations, housekeeping };
}

const never = () => new Promise<never>(() => {});

describe("housekeeping settles a payment attempt a crash left unfinished (decisions §15)", () => {
  test("paid at the processor: after the grace time the order is CONFIRMED and PAID, audited, and a retry is 'already paid' with no second charge", async () => {
    const { deps, stored, pay, payAndDie, confirmations, housekeeping, placed } = await anOrder();
    await payAndDie("pm_card_visa");
    const intentId = (await stored()).stripePaymentIntentId!;
    expect(deps.processor.intents.get(intentId)?.status).toBe("succeeded");

    deps.clock.advance(GRACE_MS - 1);
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(0);
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING" });

    deps.clock.advance(1);
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null, stripePaymentIntentId: intentId });
    const audits = await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" });
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      userId: null,
      changes: { intentId, intentStatus: "succeeded", attempt: 1, settledBy: "housekeeping", to: { status: "CONFIRMED" } },
    });

    expect(await domainErrorOf(pay("pm_card_visa"))).toMatchObject({ code: "order.already_paid", message: "Order has already been paid" });
    expect(confirmations).toEqual([]);
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(0);
  });

  test("an attempt that had to make a fresh intent (its first was cancelled) is settled from that intent, found again by the attempt's key", async () => {
    const { deps, stored, placed, payAndDie, housekeeping } = await anOrder();
    const first = (await stored()).stripePaymentIntentId!;
    await deps.payments.cancelIntent(first);
    await deps.repos.orders.update(placed.orderId, { stripePaymentIntentId: null, paymentStatus: "FAILED", updatedAt: deps.clock.now() });
    await payAndDie("pm_card_visa");
    expect((await stored()).stripePaymentIntentId).toBeNull();
    const fresh = [...deps.processor.intents.values()].find((intent) => intent.id !== first)!;
    expect(fresh.status).toBe("succeeded");

    deps.clock.advance(GRACE_MS);
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect(await stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", stripePaymentIntentId: fresh.id, paymentStartedAt: null });
    expect(deps.processor.intents.size).toBe(2);
  });

  test("declined at the processor: payment FAILED and still payable; never confirmed at all: only the mark is cleared, and the next card pays", async () => {
    const declined = await anOrder();
    await declined.payAndDie("pm_card_chargeDeclined");
    declined.deps.clock.advance(GRACE_MS);
    expect((await declined.housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect(await declined.stored()).toMatchObject({ status: "PENDING", paymentStatus: "FAILED", paymentStartedAt: null });
    expect((await declined.pay("pm_card_visa")).success).toBe(true);

    const unconfirmed = await anOrder();
    const { deps, placed, stored, housekeeping } = unconfirmed;
    await deps.repos.orders.update(placed.orderId, { paymentAttempts: 1, paymentStartedAt: deps.clock.now(), updatedAt: deps.clock.now() });
    deps.clock.advance(GRACE_MS);
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", paymentStartedAt: null });
    expect((await unconfirmed.pay("pm_card_visa")).success).toBe(true);
  });

  test("a processor that cannot answer: the attempt is passed over, still marked, and settled by a later run", async () => {
    const { deps, stored, payAndDie, housekeeping } = await anOrder();
    await payAndDie("pm_card_visa");
    deps.clock.advance(GRACE_MS);
    const down = { ...deps, payments: { ...deps.payments, retrieveIntent: () => Promise.reject(new Error("timeout")) } } as MemoryDeps;
    expect((await housekeeping(down).runOnce()).paymentsSettled).toBe(0);
    expect((await stored()).paymentStartedAt).not.toBeNull();
    expect((await housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect((await stored()).paymentStatus).toBe("PAID");
  });

  test("an order it cannot settle for a reason of its own is passed over and told of; the other orders are settled, and the run goes on to its later steps", async () => {
    const deps = createMemoryDeps();
    const [poisoned, healthy] = [await anOrder(deps), await anOrder(deps)];
    await poisoned.payAndDie("pm_card_visa");
    await healthy.payAndDie("pm_card_visa");
    const poisonedIntent = (await poisoned.stored()).stripePaymentIntentId!;
    deps.clock.advance(GRACE_MS);
    // A processor's answer the shop cannot read (the fake processor once stored such an intent).
    const unreadable = {
      ...deps,
      payments: {
        ...deps.payments,
        retrieveIntent: async (id: string) => ({ ...(await deps.payments.retrieveIntent(id)), ...(id === poisonedIntent ? { status: "bogus" } : {}) }),
      },
    };
    const errors: Array<{ event: string; orderNumber: unknown }> = [];
    const logger = { ...deps.logger, error: (event: string, fields?: Record<string, unknown>) => errors.push({ event, orderNumber: fields?.orderNumber }) };
    const run = await poisoned.housekeeping({ ...unreadable, logger } as MemoryDeps).runOnce();
    expect(run).toMatchObject({ paymentsSettled: 1 });
    expect(await healthy.stored()).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", paymentStartedAt: null });
    expect((await poisoned.stored()).paymentStartedAt).not.toBeNull();
    expect(errors).toEqual([{ event: "payment.settle_failed", orderNumber: poisoned.placed.orderNumber }]);
    // Readable again, the order is settled by the next run.
    expect((await poisoned.housekeeping().runOnce()).paymentsSettled).toBe(1);
    expect((await poisoned.stored()).paymentStatus).toBe("PAID");
  });

  test("a payment that took the attempt over while housekeeping asked the processor is left to finish it", async () => {
    const { deps, stored, placed, payAndDie, housekeeping } = await anOrder();
    await payAndDie("pm_card_visa");
    deps.clock.advance(GRACE_MS);
    const racing = {
      ...deps,
      payments: {
        ...deps.payments,
        retrieveIntent: async (id: string) => {
          await deps.repos.orders.update(placed.orderId, { paymentAttempts: 1, paymentStartedAt: deps.clock.now(), updatedAt: deps.clock.now() });
          return deps.payments.retrieveIntent(id);
        },
      },
    } as MemoryDeps;
    expect((await housekeeping(racing).runOnce()).paymentsSettled).toBe(0);
    expect(await stored()).toMatchObject({ paymentStatus: "PENDING", paymentStartedAt: deps.clock.now() });
    expect(await auditEntries(deps.repos.audit, { entityId: placed.orderId, action: "payment.succeeded" })).toEqual([]);
  });
});

/**
 * A checkout of 2 Habanero and 1 Verde whose process dies after its commit, before it stores its
 * payment intent: once the processor made it (`intentMade`), or before it was asked.
 */
async function aStrandedCheckout({ intentMade, inventory = 10 }: { intentMade: boolean; inventory?: number }) {
  const deps = createMemoryDeps();
  const ada = aUser();
  const habanero = aProduct({ name: "Habanero", price: 1299, inventory });
  const verde = aProduct({ name: "Verde", price: 899, inventory });
  await deps.repos.users.create(ada);
  for (const product of [habanero, verde]) await deps.repos.products.create(product);
  const add = (productId: string, quantity: number) => {
    // A second apart, as a shopper's adds are, so the lines (and the order's items) keep the order they were added in.
    deps.clock.advance(1_000);
    return addToCart(deps, ada.id, { productId, quantity }, NO_ORIGIN);
  };
  const lines = [await add(habanero.id, 2), await add(verde.id, 1)];
  const dying = {
    ...deps,
    payments: {
      ...deps.payments,
      createIntent: async (input: Parameters<typeof deps.payments.createIntent>[0]) => (intentMade && (await deps.payments.createIntent(input)), never()),
    },
  };
  void placeOrder(dying, DEFAULT_ORDER_SETTINGS, ada.id, { cartItemIds: lines.map((l) => l.id), shippingAddress: texas }, NO_ORIGIN);
  await eventually(() => expect(deps.state.orders.size).toBe(1));
  const orderId = [...deps.state.orders.keys()][0]!;
  const stored = async () => (await deps.repos.orders.findById(orderId))!;
  const stock = async () => [(await deps.repos.products.findById(habanero.id))!.inventory, (await deps.repos.products.findById(verde.id))!.inventory];
  const cart = async () => Object.fromEntries((await deps.repos.carts.lines(ada.id)).map((line) => [line.productId, line.quantity]));
  const pay = (d: MemoryDeps = deps) => payOrder(d, ada.id, { orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
  const housekeeping = (d: MemoryDeps = deps) => createHousekeeping(d, { intervalMs: 60_000, orderPaymentTtlMinutes: 60, graceMs: GRACE_MS });
  return { deps, ada, habanero, verde, orderId, stored, stock, cart, add, pay, housekeeping };
}

const refusing = (deps: MemoryDeps) =>
  ({
    ...deps,
    payments: {
      ...deps.payments,
      createIntent: () => Promise.reject(new DomainError("payment.intent_refused", "Payment processing failed", { operation: "createIntent", code: "test" })),
    },
  }) as MemoryDeps;

describe("housekeeping finishes a checkout a crash left without its payment intent (decisions §15)", () => {
  test("after the grace time the order gets the very intent checkout asked for (its key finds it), stored, and is payable; before, it waits", async () => {
    const { deps, stored, pay, housekeeping, orderId } = await aStrandedCheckout({ intentMade: true });
    const [made] = [...deps.processor.intents.values()];
    expect((await stored()).stripePaymentIntentId).toBeNull();
    expect((await domainErrorOf(pay())).code).toBe("payment.in_progress");

    deps.clock.advance(GRACE_MS - 1);
    expect((await housekeeping().runOnce()).intentsStored).toBe(0);
    deps.clock.advance(1);
    expect((await housekeeping().runOnce()).intentsStored).toBe(1);
    expect(await stored()).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: made!.id });
    expect(deps.processor.intents.size).toBe(1);
    expect(made).toMatchObject({ amount: (await stored()).total, metadata: { orderId, orderNumber: (await stored()).orderNumber } });
    expect((await pay()).success).toBe(true);
    expect((await housekeeping().runOnce()).intentsStored).toBe(0);
    // The order's history says where its intent came from, once.
    expect(await auditEntries(deps.repos.audit, { action: "order.intent_recovered" })).toEqual([
      expect.objectContaining({ userId: null, entityType: "order", entityId: orderId, changes: { intentId: made!.id, recoveredBy: "housekeeping" } }),
    ]);
  });

  test("one whose intent was never asked for gets it made now, for its total, under the order's own key", async () => {
    const { deps, stored, pay, housekeeping, orderId } = await aStrandedCheckout({ intentMade: false });
    expect(deps.processor.intents.size).toBe(0);
    deps.clock.advance(GRACE_MS);
    expect((await housekeeping().runOnce()).intentsStored).toBe(1);
    const { total, orderNumber, stripePaymentIntentId } = await stored();
    expect(deps.processor.intents.get(stripePaymentIntentId!)).toMatchObject({ amount: total, currency: "usd", metadata: { orderId, orderNumber } });
    expect((await deps.payments.createIntent({ amount: total, currency: "usd", metadata: {}, idempotencyKey: `order-${orderId}` })).id).toBe(
      stripePaymentIntentId!,
    );
    expect((await pay()).success).toBe(true);
  });

  test("the processor refuses: the order is cancelled, its stock back, its lines back in the cart, audited", async () => {
    const { deps, stored, stock, cart, housekeeping, habanero, verde, orderId } = await aStrandedCheckout({ intentMade: false });
    expect([await stock(), await cart()]).toEqual([[8, 9], {}]);
    deps.clock.advance(GRACE_MS);
    expect(await housekeeping(refusing(deps)).runOnce()).toMatchObject({ intentsStored: 0, checkoutsUndone: 1 });
    expect(await stored()).toMatchObject({ status: "CANCELLED", paymentStatus: "PENDING", stripePaymentIntentId: null });
    expect(await stock()).toEqual([10, 10]);
    expect(await cart()).toEqual({ [habanero.id]: 2, [verde.id]: 1 });
    const [audit] = await auditEntries(deps.repos.audit, { entityId: orderId, action: "order.status_update" });
    expect(audit).toMatchObject({
      userId: null,
      changes: {
        from: "PENDING",
        to: "CANCELLED",
        reason: "the processor would not make its payment intent",
        linesPutBack: [
          { productId: habanero.id, quantity: 2 },
          { productId: verde.id, quantity: 1 },
        ],
        linesLeftOut: [],
      },
    });
    expect(await housekeeping(refusing(deps)).runOnce()).toMatchObject({ checkoutsUndone: 0 });
    expect(await stock()).toEqual([10, 10]);
  });

  test("lines come back into the cart as it is now: into the line of a product added since (up to 99, the rest said in the audit)", async () => {
    const { deps, add, cart, housekeeping, habanero, verde, orderId } = await aStrandedCheckout({ intentMade: false, inventory: 200 });
    await add(habanero.id, 98);
    deps.clock.advance(GRACE_MS);
    expect((await housekeeping(refusing(deps)).runOnce()).checkoutsUndone).toBe(1);
    expect(await cart()).toEqual({ [habanero.id]: 99, [verde.id]: 1 });
    const [audit] = await auditEntries(deps.repos.audit, { entityId: orderId, action: "order.status_update" });
    expect(audit?.changes).toMatchObject({
      linesPutBack: [
        { productId: habanero.id, quantity: 1 },
        { productId: verde.id, quantity: 1 },
      ],
      linesLeftOut: [{ productId: habanero.id, quantity: 1, reason: "line_full" }],
    });
  });

  test("lines off sale take no place among the 50: the oldest give way to the order's lines, as for an add, each removal audited", async () => {
    const { deps, add, cart, housekeeping, habanero, verde, orderId } = await aStrandedCheckout({ intentMade: false });
    // 49 lines kept meanwhile, the two oldest then taken off sale: the shopper sees 47, and the
    // order's two lines make 49 on sale, so the oldest line off sale gives way and 50 are kept.
    const others = Array.from({ length: 49 }, (_, i) => aProduct({ name: `Sauce ${i}`, inventory: 5 }));
    for (const product of others) await deps.repos.products.create(product);
    const lines = [];
    for (const product of others) lines.push(await add(product.id, 1));
    for (const product of others.slice(0, 2)) await deps.repos.products.update(product.id, { isActive: false, updatedAt: deps.clock.now() });
    deps.clock.advance(GRACE_MS);
    expect((await housekeeping(refusing(deps)).runOnce()).checkoutsUndone).toBe(1);
    const after = await cart();
    expect(Object.keys(after)).toHaveLength(50);
    expect([after[habanero.id], after[verde.id], after[others[0]!.id], after[others[1]!.id]]).toEqual([2, 1, undefined, 1]);
    const [audit] = await auditEntries(deps.repos.audit, { entityId: orderId, action: "order.status_update" });
    expect(audit?.changes).toMatchObject({ linesLeftOut: [] });
    expect(await auditEntries(deps.repos.audit, { entityId: lines[0]!.id, action: "cart.remove" })).toMatchObject([
      { userId: null, changes: { productId: others[0]!.id, quantity: 1, reason: "off_sale_made_room" } },
    ]);
  });

  test("a processor that cannot answer (it failed without saying what it did): the order waits for a later run, which gives it its intent", async () => {
    // As the Stripe gateway reports a call whose outcome it cannot know (a timeout, a 500), and a failure of no gateway's.
    const failures = [
      new DomainError("payment.processor_failed", "Payment processing failed", { operation: "createIntent", outcomeUnknown: true }),
      new Error("timeout"),
    ];
    for (const failure of failures) {
      const { deps, stored, housekeeping, stock } = await aStrandedCheckout({ intentMade: false });
      deps.clock.advance(GRACE_MS);
      const down = { ...deps, payments: { ...deps.payments, createIntent: () => Promise.reject(failure) } } as MemoryDeps;
      expect(await housekeeping(down).runOnce()).toMatchObject({ intentsStored: 0, checkoutsUndone: 0 });
      expect(await stored()).toMatchObject({ status: "PENDING", stripePaymentIntentId: null });
      expect(await stock()).toEqual([8, 9]);
      expect((await housekeeping().runOnce()).intentsStored).toBe(1);
      expect(await stored()).toMatchObject({ status: "PENDING", stripePaymentIntentId: expect.any(String) });
    }
  });

  test("an order staff cancelled while housekeeping asked for its intent is not given it: the intent is cancelled, so it is never paid", async () => {
    const { deps, stored, housekeeping, orderId } = await aStrandedCheckout({ intentMade: false });
    deps.clock.advance(GRACE_MS);
    const staff: Actor = { userId: "staff-1", role: "STAFF", permissions: new Set(DEFAULT_ROLE_PERMISSIONS.STAFF) };
    const racing = {
      ...deps,
      payments: {
        ...deps.payments,
        createIntent: async (input: Parameters<typeof deps.payments.createIntent>[0]) => {
          await changeOrderStatus(deps, staff, { id: orderId }, { status: "CANCELLED" }, NO_ORIGIN);
          return deps.payments.createIntent(input);
        },
      },
    } as MemoryDeps;
    expect((await housekeeping(racing).runOnce()).intentsStored).toBe(0);
    expect(await stored()).toMatchObject({ status: "CANCELLED", stripePaymentIntentId: null });
    expect([...deps.processor.intents.values()].map((intent) => intent.status)).toEqual(["canceled"]);
  });

  /**
   * A customer's checkout of two sauces whose call for its payment intent is held past the grace
   * time: the processor makes the intent at once, and its answer waits for `release`; then it comes
   * back (`answer: "returned"`), or is lost on the way, as a processor that failed without saying
   * what it did (`"lost"`). Housekeeping has stored the intent meanwhile.
   */
  async function aCheckoutHeldPastGrace(answer: "returned" | "lost") {
    const deps = createMemoryDeps();
    const ada = aUser();
    const sauce = aProduct({ price: 1299, inventory: 10 });
    await deps.repos.users.create(ada);
    await deps.repos.products.create(sauce);
    const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
    const held = Promise.withResolvers<void>();
    const holding = {
      ...deps,
      payments: {
        ...deps.payments,
        createIntent: async (input: Parameters<typeof deps.payments.createIntent>[0]) => {
          const intent = await deps.payments.createIntent(input);
          await held.promise;
          if (answer === "returned") return intent;
          throw new DomainError("payment.processor_failed", "Payment processing failed", { operation: "createIntent", outcomeUnknown: true });
        },
      },
    };
    const placing = placeOrder(holding, DEFAULT_ORDER_SETTINGS, ada.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
    await eventually(() => expect(deps.processor.intents.size).toBe(1));
    deps.clock.advance(GRACE_MS);
    expect((await createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60, graceMs: GRACE_MS }).runOnce()).intentsStored).toBe(1);
    held.resolve();
    const [intent] = [...deps.processor.intents.values()];
    return { deps, ada, sauce, placing, intent: intent! };
  }

  test("a checkout still alive past the grace time, whose intent housekeeping stored first, answers its order as placed: not undone", async () => {
    const { deps, placing, intent } = await aCheckoutHeldPastGrace("returned");
    const placed = await placing;
    expect(placed.clientSecret).toBe(intent.clientSecret);
    expect(await deps.repos.orders.findById(placed.orderId)).toMatchObject({ status: "PENDING", stripePaymentIntentId: intent.id });
    expect(intent.status).toBe("requires_payment_method");
  });

  test("a checkout whose intent call failed after housekeeping had stored that intent is not undone: the order stays payable, its stock taken", async () => {
    const { deps, ada, sauce, placing, intent } = await aCheckoutHeldPastGrace("lost");
    expect((await domainErrorOf(placing)).code).toBe("order.creation_failed");
    const [order] = [...deps.state.orders.values()];
    expect(order).toMatchObject({ status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: intent.id });
    expect(intent.status).toBe("requires_payment_method");
    expect((await deps.repos.products.findById(sauce.id))!.inventory).toBe(8);
    expect(await deps.repos.carts.lines(ada.id)).toEqual([]);
    expect((await payOrder(deps, ada.id, { orderId: order!.id, paymentMethodId: "pm_card_visa" }, NO_ORIGIN)).success).toBe(true);
  });
});
