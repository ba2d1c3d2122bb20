import { describe, expect, test } from "bun:test";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { register } from "../../src/application/auth/register.ts";
import { signInWithPassword } from "../../src/application/auth/sign-in-with-password.ts";
import { signOut } from "../../src/application/auth/sign-out.ts";
import { claimIdempotencyKey, keepIdempotentResponse } from "../../src/application/idempotency/idempotency-keys.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { payOrder } from "../../src/application/orders/pay-order.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { eventually } from "../support/eventually.ts";

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
  expect(await housekeeping.runOnce()).toEqual({ paymentsSettled: 0, ordersExpired: 0, sessionsPurged: 2, idempotencyKeysPurged: 0 });
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

const GRACE_MS = 120_000;
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

/** A shopper's order of 2 × $12.99 (10 in stock), placed, with its housekeeping and ways to pay it. */
async function anOrder(deps: MemoryDeps = createMemoryDeps()) {
  const ada = aUser();
  const sauce = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
  const placed = await placeOrder(deps, "SF", ada.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
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
    const audits = await deps.repos.audit.list({ entityId: placed.orderId, action: "payment.succeeded" });
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
    expect(await deps.repos.audit.list({ entityId: placed.orderId, action: "payment.succeeded" })).toEqual([]);
  });
});
