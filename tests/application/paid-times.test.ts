import { describe, expect, test } from "bun:test";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { receiveWebhookEvent } from "../../src/application/events/receive-webhook-event.ts";
import { changeOrderStatus } from "../../src/application/orders/change-order-status.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { payOrder } from "../../src/application/payments/pay-order.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import type { ProcessorEvent } from "../../src/domain/payment.ts";
import { SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
const MINUTE = 60_000;

/** An order placed at the clock's time, which then moves on a minute, so a time stamped later is told from its creation. */
async function anOrder(deps: MemoryDeps = createMemoryDeps()) {
  const ada = aUser();
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(sauce);
  const line = await addToCart(deps, ada.id, { productId: sauce.id, quantity: 1 }, NO_ORIGIN);
  const placed = await placeOrder(deps, DEFAULT_ORDER_SETTINGS, ada.id, { cartItemIds: [line.id], shippingAddress: texas }, NO_ORIGIN);
  deps.clock.advance(MINUTE);
  const stored = async () => (await deps.repos.orders.findById(placed.orderId))!;
  const times = async () => {
    const { paidAt, refundedAt } = await stored();
    return { paidAt, refundedAt };
  };
  return { deps, ada, placed, stored, times, intentId: (await stored()).stripePaymentIntentId! };
}

const webhook = (eventId: string, event: ProcessorEvent, orderId: string) =>
  ({ provider: "stripe", eventId, type: `payment_intent.${event.kind}`, meaning: { kind: "payment", event, orderId } }) as const;

describe("an order's paid time is stamped, in the write that makes it PAID, whichever path pays it", () => {
  test("an order not yet paid has none, nor a refunded time", async () => {
    const { times } = await anOrder();
    expect(await times()).toEqual({ paidAt: null, refundedAt: null });
  });

  test("payOrder: a card that pays", async () => {
    const { deps, ada, placed, times } = await anOrder();
    const now = deps.clock.now();
    await payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
    expect(await times()).toEqual({ paidAt: now, refundedAt: null });
  });

  test("the processor's webhook, after 3-D Secure: paid when the success is heard, not when the payment began", async () => {
    const { deps, ada, placed, times, intentId } = await anOrder();
    await payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_threeDSecure2Required" }, NO_ORIGIN);
    deps.clock.advance(5 * MINUTE);
    await deps.processor.completeAction(intentId, true);
    const paid: ProcessorEvent = { kind: "succeeded", processor: "stripe", intentId, amount: placed.amount, currency: "usd" };
    expect(await receiveWebhookEvent(deps, webhook("evt_paid", paid, placed.orderId))).toBe("applied");
    expect(await times()).toEqual({ paidAt: deps.clock.now(), refundedAt: null });
    // A redelivery, later, changes nothing.
    deps.clock.advance(MINUTE);
    expect(await receiveWebhookEvent(deps, webhook("evt_paid_again", paid, placed.orderId))).toBe("unchanged");
    expect((await times()).paidAt).toEqual(new Date(deps.clock.now().getTime() - MINUTE));
  });

  test("the fake processor's 3-D Secure challenge, authorized over HTTP", async () => {
    const t = createTestApp();
    const sauce = aProduct({ price: 1299, inventory: 10 });
    await t.deps.repos.products.create(sauce);
    const me = await signedInAs(t);
    const line = (await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: me.headers })).body.cartItem.id;
    const { orderId } = (await t.call("POST", "/api/orders", { body: { cartItemIds: [line], shippingAddress: texas }, headers: me.headers })).body;
    const paying = await t.call("POST", "/api/payment", { body: { orderId, paymentMethodId: "pm_card_threeDSecure2Required" }, headers: me.headers });
    t.deps.clock.advance(3 * MINUTE);
    expect((await t.call("POST", `${new URL(paying.body.paymentIntent.nextAction.redirectUrl).pathname}/authorize`)).status).toBe(200);
    expect((await t.deps.repos.orders.findById(orderId))?.paidAt).toEqual(t.deps.clock.now());
  });

  test("housekeeping settling an attempt whose process died after the processor took the money", async () => {
    const { deps, ada, placed, times } = await anOrder();
    // The process dies once the processor has taken the money: its answer never comes back.
    const confirmed = Promise.withResolvers<void>();
    const confirmThenDie = async (...args: [string, string, string]) => {
      await deps.payments.confirmIntent(...args);
      confirmed.resolve();
      return never();
    };
    const dying = { ...deps, payments: { ...deps.payments, confirmIntent: confirmThenDie } };
    void payOrder(dying as MemoryDeps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
    await confirmed.promise;
    deps.clock.advance(DEFAULT_ORDER_SETTINGS.graceMs);
    const housekeeping = createHousekeeping(deps, { intervalMs: MINUTE, orderPaymentTtlMinutes: 60, graceMs: DEFAULT_ORDER_SETTINGS.graceMs });
    expect((await housekeeping.runOnce()).paymentsSettled).toBe(1);
    expect(await times()).toEqual({ paidAt: deps.clock.now(), refundedAt: null });
  });

  test("staff ending an unpaid order whose payment had gone through: settled as paid, then refunded", async () => {
    const { deps, times, placed, intentId } = await anOrder();
    await deps.processor.confirmIntent(intentId, "pm_card_visa", "paid-behind-the-shop's-back");
    await changeOrderStatus(deps, SYSTEM_ACTOR, { id: placed.orderId }, { status: "CANCELLED" }, NO_ORIGIN);
    expect(await times()).toEqual({ paidAt: deps.clock.now(), refundedAt: deps.clock.now() });
  });
});

describe("an order's refunded time is stamped when its payment becomes REFUNDED", () => {
  test("a paid order staff cancel: refunded when the processor confirms the refund", async () => {
    const { deps, ada, placed, times } = await anOrder();
    await payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
    const paidAt = deps.clock.now();
    deps.clock.advance(24 * 60 * MINUTE);
    await changeOrderStatus(deps, SYSTEM_ACTOR, { id: placed.orderId }, { status: "CANCELLED" }, NO_ORIGIN);
    expect(await times()).toEqual({ paidAt, refundedAt: deps.clock.now() });
  });

  test("a refund made at the processor, heard through its webhook", async () => {
    const { deps, ada, placed, times, intentId } = await anOrder();
    await payOrder(deps, ada.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, NO_ORIGIN);
    const paidAt = deps.clock.now();
    deps.clock.advance(3 * 24 * 60 * MINUTE);
    expect(await receiveWebhookEvent(deps, webhook("evt_refunded", { kind: "refunded", intentId, fully: true }, placed.orderId))).toBe("applied");
    expect(await times()).toEqual({ paidAt, refundedAt: deps.clock.now() });
  });
});

const never = () => new Promise<never>(() => {});
