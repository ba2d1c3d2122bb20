import { expect, test } from "bun:test";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { register } from "../../src/application/auth/register.ts";
import { signInWithPassword } from "../../src/application/auth/sign-in-with-password.ts";
import { signOut } from "../../src/application/auth/sign-out.ts";
import { claimIdempotencyKey, keepIdempotentResponse } from "../../src/application/idempotency/idempotency-keys.ts";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { changeOrderStatus } from "../../src/application/orders/change-order-status.ts";
import { payOrder } from "../../src/application/orders/pay-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import type { PaymentGateway } from "../../src/application/ports/payments.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import { REFUND_ATTEMPT_LEASE_MS, REFUND_RETRY_MS } from "../../src/domain/refund.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct, aUser } from "../support/builders.ts";
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
  expect(await housekeeping.runOnce()).toEqual({ ordersExpired: 0, sessionsPurged: 2, idempotencyKeysPurged: 0, refundsMade: 0, refundsDue: 0 });
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

const admin = { userId: "admin-1", role: "ADMIN" as const, permissions: new Set(DEFAULT_ROLE_PERMISSIONS.ADMIN) };

/** A paid order, and a processor that refuses refunds while `down`, noting every key it is asked with. */
async function aPaidOrder() {
  const deps = createMemoryDeps();
  const ada = aUser();
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 1 }, NO_ORIGIN);
  const { orderId } = await placeOrder(
    deps,
    DEFAULT_ORDER_SETTINGS,
    ada.id,
    { cartItemIds: [line.id], shippingAddress: { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" } },
    NO_ORIGIN,
  );
  await payOrder(deps, ada.id, { orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
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
