import { describe, expect, test } from "bun:test";
import type { Order } from "../../src/domain/order.ts";
import { type ProcessorEvent, confirmationOutcome, processorEventEffect } from "../../src/domain/payment.ts";

type State = Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId">;
const pending: State = { status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: "pi_1" };

describe("what a confirmation means for a payable order (decisions §4)", () => {
  test("succeeded: CONFIRMED and PAID, success", () => {
    expect(confirmationOutcome({ status: "succeeded", lastError: null })).toEqual({
      changes: { status: "CONFIRMED", paymentStatus: "PAID" },
      success: true,
      decline: null,
      audit: "payment.succeeded",
    });
  });

  test("requires_action and processing: nothing changes, no success (the webhook finishes them)", () => {
    expect(confirmationOutcome({ status: "requires_action", lastError: null })).toMatchObject({ changes: {}, success: false, decline: null, audit: "payment.requires_action" });
    expect(confirmationOutcome({ status: "processing", lastError: null })).toMatchObject({ changes: {}, success: false, decline: null, audit: "payment.processing" });
  });

  test("a decline fails the payment and says why", () => {
    const outcome = confirmationOutcome({ status: "requires_payment_method", lastError: { code: "card_declined", declineCode: "insufficient_funds" } });
    expect(outcome).toEqual({
      changes: { paymentStatus: "FAILED" },
      success: false,
      decline: { code: "card_declined", declineCode: "insufficient_funds" },
      audit: "payment.failed",
    });
  });

  test("canceled fails the payment and lets the intent go, so the next attempt makes a fresh one", () => {
    expect(confirmationOutcome({ status: "canceled", lastError: null })).toEqual({
      changes: { paymentStatus: "FAILED", stripePaymentIntentId: null },
      success: false,
      decline: null,
      audit: "payment.failed",
    });
  });
});

/** The state after each event in turn, as the webhook applies them. */
function settle(start: State, events: ProcessorEvent[]): State & { restocked: number; refundedLate: number } {
  let state = { ...start, restocked: 0, refundedLate: 0 };
  for (const event of events) {
    const { changes, restock, refundLatePayment } = processorEventEffect(state, event);
    state = { ...state, ...changes, restocked: state.restocked + Number(restock), refundedLate: state.refundedLate + Number(refundLatePayment) };
  }
  return state;
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe("processor events, applied monotonically (decisions §8)", () => {
  const succeeded: ProcessorEvent = { kind: "succeeded", intentId: "pi_1" };
  const failed: ProcessorEvent = { kind: "failed", intentId: "pi_1" };
  const canceled: ProcessorEvent = { kind: "canceled", intentId: "pi_1" };
  const refunded: ProcessorEvent = { kind: "refunded", intentId: "pi_1", fully: true };

  test("a success confirms and pays a pending order", () => {
    expect(settle(pending, [succeeded])).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", restocked: 0 });
  });

  test("a paid order never goes back: a failure or cancellation after the success changes nothing", () => {
    for (const late of [failed, canceled]) {
      const paid = { status: "CONFIRMED", paymentStatus: "PAID", stripePaymentIntentId: "pi_1" } as const;
      expect(processorEventEffect(paid, late)).toMatchObject({ changes: {}, ignored: "payment is already PAID" });
    }
  });

  test("a declined attempt then a paid one end PAID, whichever arrives first", () => {
    for (const order of permutations([failed, succeeded])) expect(settle(pending, order)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("success and full refund end REFUNDED with the stock back once, in either order", () => {
    for (const order of permutations([succeeded, refunded])) {
      expect(settle(pending, order)).toMatchObject({ status: "REFUNDED", paymentStatus: "REFUNDED", restocked: 1, refundedLate: 0 });
    }
  });

  test("every delivery order of success, a duplicate and a refund, mixed with stale failures, ends the same", () => {
    const ends = permutations([succeeded, succeeded, refunded, failed]).map((order) => JSON.stringify(settle(pending, order)));
    expect(new Set(ends)).toEqual(new Set([JSON.stringify({ ...pending, status: "REFUNDED", paymentStatus: "REFUNDED", restocked: 1, refundedLate: 0 })]));
  });

  test("a refund after shipping keeps the goods out of stock", () => {
    const shipped = { status: "SHIPPED", paymentStatus: "PAID", stripePaymentIntentId: "pi_1" } as const;
    expect(processorEventEffect(shipped, refunded)).toEqual({ changes: { status: "REFUNDED", paymentStatus: "REFUNDED" }, restock: false, refundLatePayment: false, ignored: null });
  });

  test("a partial refund leaves the order as it is", () => {
    const paid = { status: "PROCESSING", paymentStatus: "PAID", stripePaymentIntentId: "pi_1" } as const;
    expect(processorEventEffect(paid, { ...refunded, fully: false })).toMatchObject({ changes: {}, restock: false, ignored: "a partial refund leaves the order as it is" });
  });

  test("money for an order that already ended is sent back, and the order stays ended", () => {
    const expired = { status: "CANCELLED", paymentStatus: "PENDING", stripePaymentIntentId: "pi_1" } as const;
    expect(processorEventEffect(expired, succeeded)).toEqual({
      changes: { paymentStatus: "REFUNDED", stripePaymentIntentId: "pi_1" },
      restock: false,
      refundLatePayment: true,
      ignored: null,
    });
    expect(settle(expired, [succeeded, succeeded, refunded])).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED", refundedLate: 1, restocked: 0 });
  });

  test("a failure fails a pending payment once; a cancellation also lets the intent go", () => {
    expect(processorEventEffect(pending, failed)).toMatchObject({ changes: { paymentStatus: "FAILED" }, ignored: null });
    expect(processorEventEffect({ ...pending, paymentStatus: "FAILED" }, failed)).toMatchObject({ changes: {}, ignored: "payment is already FAILED" });
    expect(processorEventEffect(pending, canceled)).toMatchObject({ changes: { paymentStatus: "FAILED", stripePaymentIntentId: null }, ignored: null });
  });

  test("a failure of an intent the order no longer uses is stale", () => {
    expect(processorEventEffect({ ...pending, stripePaymentIntentId: "pi_2" }, failed)).toMatchObject({ changes: {}, ignored: "not the order's current payment intent" });
    expect(processorEventEffect({ ...pending, stripePaymentIntentId: null }, canceled)).toMatchObject({ changes: {}, ignored: "not the order's current payment intent" });
  });

  test("a failure of an order that is no longer pending changes nothing", () => {
    expect(processorEventEffect({ ...pending, status: "CANCELLED" }, failed)).toMatchObject({ changes: {}, ignored: "order is CANCELLED" });
  });
});
