import { describe, expect, test } from "bun:test";
import { ORDER_STATUSES, ORDER_TRANSITIONS, type Order, PAYMENT_STATUSES, type PaymentStatus, reaches } from "../../src/domain/order.ts";
import {
  PAYMENT_ATTEMPT_ABANDONED_MS,
  type ProcessorEvent,
  beginPaymentAttempt,
  confirmationOutcome,
  eventOfIntent,
  decidePayment,
} from "../../src/domain/payment.ts";

type State = Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId" | "total" | "paidVia" | "paidReference">;
const pending: State = { status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: "pi_1", total: 2079, paidVia: null, paidReference: null };

describe("what a confirmation means for the caller (decisions §4)", () => {
  test("succeeded is success", () => {
    expect(confirmationOutcome({ status: "succeeded", lastError: null })).toEqual({ success: true, decline: null, audit: "payment.succeeded" });
  });

  test("requires_action and processing are not yet (the webhook finishes them)", () => {
    expect(confirmationOutcome({ status: "requires_action", lastError: null })).toEqual({ success: false, decline: null, audit: "payment.requires_action" });
    expect(confirmationOutcome({ status: "processing", lastError: null })).toEqual({ success: false, decline: null, audit: "payment.processing" });
  });

  test("a decline says why", () => {
    expect(confirmationOutcome({ status: "requires_payment_method", lastError: { code: "card_declined", declineCode: "insufficient_funds" } })).toEqual({
      success: false,
      decline: { code: "card_declined", declineCode: "insufficient_funds" },
      audit: "payment.failed",
    });
  });

  test("canceled is a failure without a decline (the intent's own event lets the intent go)", () => {
    expect(confirmationOutcome({ status: "canceled", lastError: null })).toEqual({ success: false, decline: null, audit: "payment.failed" });
  });
});

/** The state after each event in turn, as the webhook applies them. */
function settle(start: State, events: ProcessorEvent[]): State & { restocked: number; refundedLate: number } {
  let state = { ...start, restocked: 0, refundedLate: 0 };
  for (const event of events) {
    const { changes, restock, refundLatePayment } = decidePayment(state, event);
    state = { ...state, ...changes, restocked: state.restocked + Number(restock), refundedLate: state.refundedLate + Number(refundLatePayment) };
  }
  return state;
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe("processor events, applied monotonically (decisions §8)", () => {
  const succeeded: ProcessorEvent = { kind: "succeeded", processor: "stripe", intentId: "pi_1", amount: 2079, currency: "usd" };
  const failed: ProcessorEvent = { kind: "failed", intentId: "pi_1" };
  const canceled: ProcessorEvent = { kind: "canceled", intentId: "pi_1" };
  const refunded: ProcessorEvent = { kind: "refunded", intentId: "pi_1", fully: true };

  test("a success confirms and pays a pending order", () => {
    expect(settle(pending, [succeeded])).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", restocked: 0 });
  });

  test("a paid order never goes back: a failure or cancellation after the success changes nothing", () => {
    for (const late of [failed, canceled]) {
      const paid = {
        status: "CONFIRMED",
        paymentStatus: "PAID",
        stripePaymentIntentId: "pi_1",
        total: 2079,
        paidVia: "stripe",
        paidReference: "pi_1",
      } as const;
      expect(decidePayment(paid, late)).toMatchObject({ changes: {}, ignored: "payment is already PAID" });
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
    expect(new Set(ends)).toEqual(
      new Set([
        JSON.stringify({ ...pending, status: "REFUNDED", paymentStatus: "REFUNDED", paidVia: "stripe", paidReference: "pi_1", restocked: 1, refundedLate: 0 }),
      ]),
    );
  });

  test("a refund after shipping keeps the goods out of stock", () => {
    const shipped = { status: "SHIPPED", paymentStatus: "PAID", stripePaymentIntentId: "pi_1", total: 2079, paidVia: "stripe", paidReference: "pi_1" } as const;
    expect(decidePayment(shipped, refunded)).toEqual({
      changes: { status: "REFUNDED", paymentStatus: "REFUNDED", paidVia: "stripe", paidReference: "pi_1" },
      restock: false,
      refundLatePayment: false,
      ignored: null,
      flagged: false,
    });
  });

  test("a partial refund leaves the order as it is", () => {
    const paid = { status: "PROCESSING", paymentStatus: "PAID", stripePaymentIntentId: "pi_1", total: 2079, paidVia: "stripe", paidReference: "pi_1" } as const;
    expect(decidePayment(paid, { ...refunded, fully: false })).toMatchObject({
      changes: {},
      restock: false,
      ignored: "a partial refund leaves the order as it is",
    });
  });

  test("money for an order that already ended is sent back, and the order stays ended", () => {
    const expired = { status: "CANCELLED", paymentStatus: "PENDING", stripePaymentIntentId: "pi_1", total: 2079, paidVia: null, paidReference: null } as const;
    expect(decidePayment(expired, succeeded)).toEqual({
      changes: { paymentStatus: "REFUNDED", stripePaymentIntentId: "pi_1", paidVia: "stripe", paidReference: "pi_1" },
      restock: false,
      refundLatePayment: true,
      ignored: null,
      flagged: false,
    });
    expect(settle(expired, [succeeded, succeeded, refunded])).toMatchObject({ status: "CANCELLED", paymentStatus: "REFUNDED", refundedLate: 1, restocked: 0 });
  });

  test("a failure fails a pending payment once; a cancellation also lets the intent go", () => {
    expect(decidePayment(pending, failed)).toMatchObject({ changes: { paymentStatus: "FAILED" }, ignored: null });
    expect(decidePayment({ ...pending, paymentStatus: "FAILED" }, failed)).toMatchObject({ changes: {}, ignored: "payment is already FAILED" });
    expect(decidePayment(pending, canceled)).toMatchObject({ changes: { paymentStatus: "FAILED", stripePaymentIntentId: null }, ignored: null });
  });

  test("a refund of another intent than an unpaid order's own moves nothing: it never paid the order (found by an attack on the webhooks)", () => {
    expect(decidePayment(pending, { ...refunded, intentId: "pi_someoneelse" })).toMatchObject({
      changes: {},
      restock: false,
      ignored: "a refund of an intent that is not the order's current payment intent (pi_someoneelse): recorded",
    });
    // Its own intent's success, heard after, pays it as ever.
    expect(settle(pending, [{ ...refunded, intentId: "pi_someoneelse" }, succeeded])).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
    // Its own, paid and refunded before the success was heard, ends it REFUNDED with the stock back.
    expect(decidePayment(pending, refunded)).toMatchObject({ changes: { status: "REFUNDED", paymentStatus: "REFUNDED" }, restock: true });
  });

  test("a failure of an intent the order no longer uses is stale", () => {
    expect(decidePayment({ ...pending, stripePaymentIntentId: "pi_2" }, failed)).toMatchObject({
      changes: {},
      ignored: "not the order's current payment intent",
    });
    expect(decidePayment({ ...pending, stripePaymentIntentId: null }, canceled)).toMatchObject({
      changes: {},
      ignored: "not the order's current payment intent",
    });
  });

  test("a success moves only a PENDING order to CONFIRMED: an unpaid order staff moved on keeps its status, whatever order events arrive in", () => {
    for (const status of ["CONFIRMED", "PROCESSING", "SHIPPED", "DELIVERED"] as const) {
      const movedOn: State = { ...pending, status };
      expect(decidePayment(movedOn, succeeded)).toMatchObject({ changes: { paymentStatus: "PAID", stripePaymentIntentId: "pi_1" }, ignored: null });
      expect(decidePayment(movedOn, succeeded).changes).not.toHaveProperty("status");
      const ends = new Set(permutations([succeeded, succeeded, failed]).map((order) => JSON.stringify(settle(movedOn, order))));
      expect([...ends]).toEqual([
        JSON.stringify({ ...movedOn, paymentStatus: "PAID", paidVia: "stripe", paidReference: "pi_1", restocked: 0, refundedLate: 0 }),
      ]);
    }
  });

  test("from every status, every order of the events ends the same, and no status is left for an earlier one", () => {
    const rank = (s: string) => ORDER_STATUSES.indexOf(s as (typeof ORDER_STATUSES)[number]);
    for (const status of ORDER_STATUSES) {
      for (const paymentStatus of ["PENDING", "FAILED"] as const) {
        const start: State = { ...pending, status, paymentStatus };
        const ends = permutations([succeeded, refunded, failed, canceled]).map((order) => {
          let state = { ...start, restocked: 0, refundedLate: 0 };
          for (const event of order) {
            const next = settle(state, [event]);
            if (state.status !== "CANCELLED" && state.status !== "REFUNDED" && next.status !== state.status)
              expect(rank(next.status)).toBeGreaterThan(rank(state.status));
            state = { ...next, restocked: state.restocked + next.restocked, refundedLate: state.refundedLate + next.refundedLate };
          }
          return JSON.stringify({ status: state.status, paymentStatus: state.paymentStatus, restocked: state.restocked });
        });
        expect(new Set(ends).size).toBe(1);
      }
    }
  });

  test("money for another amount or currency is flagged, never applied", () => {
    expect(decidePayment(pending, { ...succeeded, amount: 1 })).toMatchObject({
      changes: {},
      flagged: true,
      ignored: "paid 1 usd, but the order's total is 2079 usd: not applied",
    });
    expect(decidePayment(pending, { ...succeeded, currency: "EUR" })).toMatchObject({
      flagged: true,
      ignored: "paid 2079 eur, but the order's total is 2079 usd: not applied",
    });
  });

  test("a second intent's money for an order already paid is sent back, and flagged; its refund then moves nothing", () => {
    const paid = { ...pending, status: "CONFIRMED", paymentStatus: "PAID", paidVia: "stripe", paidReference: "pi_1" } as const;
    expect(decidePayment(paid, { ...succeeded, intentId: "pi_2" })).toEqual({
      changes: {},
      restock: false,
      refundLatePayment: true,
      ignored: "paid again through stripe (pi_2), after stripe (pi_1): refunded",
      flagged: true,
    });
    expect(decidePayment(paid, succeeded)).toMatchObject({ refundLatePayment: false, flagged: false, ignored: "payment is already PAID" });
    // Refunded since, the same: the order needs that money no more than before (it was kept, flagged for staff: found by a review).
    const refundedSince = { ...paid, status: "REFUNDED", paymentStatus: "REFUNDED" } as const;
    expect(decidePayment(refundedSince, { ...succeeded, intentId: "pi_2" })).toMatchObject({
      refundLatePayment: true,
      flagged: true,
      ignored: "paid again through stripe (pi_2), after stripe (pi_1): refunded",
    });
    expect(decidePayment(paid, { ...refunded, intentId: "pi_2" })).toMatchObject({
      changes: {},
      restock: false,
      ignored: "a refund of a payment the order was not paid with (pi_2): recorded",
    });
  });

  test("paid through Square: a second Square payment is flagged, a redelivery is not; a Stripe refund of other money moves nothing", () => {
    const paidBySquare = { ...pending, status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", paidReference: "sq_1" } as const;
    const square = { ...succeeded, processor: "square", intentId: "sq_1" };
    expect(decidePayment(paidBySquare, square)).toMatchObject({ flagged: false, ignored: "payment is already PAID" });
    expect(decidePayment(paidBySquare, { ...square, intentId: "sq_2" })).toMatchObject({
      changes: {},
      flagged: true,
      refundLatePayment: false,
      ignored: "paid again through square (sq_2), after square (sq_1): not applied",
    });
    expect(decidePayment(paidBySquare, { ...refunded, intentId: "pi_other" })).toMatchObject({
      changes: {},
      restock: false,
      ignored: "a refund of a payment the order was not paid with (pi_other): recorded",
    });
    expect(decidePayment(paidBySquare, refunded)).toMatchObject({ changes: {}, restock: false });
  });

  test("decisions §11: an order is paid once, whichever provider says so first; the second is flagged and never applied (what the shop's own processor took, it sends back)", () => {
    const square = { ...succeeded, processor: "square", intentId: "sq_1" };
    expect(decidePayment(pending, square)).toEqual({
      changes: { status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", paidReference: "sq_1" },
      restock: false,
      refundLatePayment: false,
      ignored: null,
      flagged: false,
    });
    const paidBySquare = { ...pending, status: "CONFIRMED", paymentStatus: "PAID", paidVia: "square", paidReference: "sq_1" } as const;
    expect(decidePayment(paidBySquare, square)).toMatchObject({ flagged: false, ignored: "payment is already PAID" });
    expect(decidePayment(paidBySquare, succeeded)).toMatchObject({
      changes: {},
      refundLatePayment: true,
      flagged: true,
      ignored: "paid again through stripe (pi_1), after square (sq_1): refunded",
    });
    const paidByStripe = { ...pending, status: "CONFIRMED", paymentStatus: "PAID", paidVia: "stripe", paidReference: "pi_1" } as const;
    expect(decidePayment(paidByStripe, square)).toMatchObject({
      changes: {},
      refundLatePayment: false,
      flagged: true,
      ignored: "paid again through square (sq_1), after stripe (pi_1): not applied",
    });
    for (const first of permutations([succeeded, square])) expect(settle(pending, first)).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID" });
  });

  test("money through another provider for an order that had ended is flagged, not applied", () => {
    const square = { ...succeeded, processor: "paypal", intentId: "CAPTURE-1" };
    expect(decidePayment({ ...pending, status: "CANCELLED" }, square)).toMatchObject({
      changes: {},
      refundLatePayment: false,
      flagged: true,
      ignored: "paid through paypal after the order was CANCELLED: not applied",
    });
  });

  test("a failure of an order that is no longer pending changes nothing", () => {
    expect(decidePayment({ ...pending, status: "CANCELLED" }, failed)).toMatchObject({ changes: {}, ignored: "order is CANCELLED" });
  });
});

describe("starting an attempt at paying", () => {
  const now = new Date("2026-11-23T12:00:00Z");
  const order = { status: "PENDING", paymentStatus: "PENDING", stripePaymentIntentId: "pi_1", paymentAttempts: 0, paymentStartedAt: null } as const;

  test("the next attempt is counted", () => {
    expect(beginPaymentAttempt(order, now)).toEqual({ attempt: 1 });
    expect(beginPaymentAttempt({ ...order, paymentStatus: "FAILED", paymentAttempts: 2 }, now)).toEqual({ attempt: 3 });
  });

  test("refused in decisions §4's order: already paid, then not payable", () => {
    expect(() => beginPaymentAttempt({ ...order, status: "CONFIRMED", paymentStatus: "PAID" }, now)).toThrow("Order has already been paid");
    expect(() => beginPaymentAttempt({ ...order, status: "CANCELLED" }, now)).toThrow("Order cannot be paid in its current status");
  });

  test("while another attempt waits on the processor, or checkout has not stored its intent yet, it is in progress (409)", () => {
    const waiting = { ...order, paymentAttempts: 1, paymentStartedAt: new Date(now.getTime() - 1_000) };
    expect(() => beginPaymentAttempt(waiting, now)).toThrow("A payment of this order is being processed; try again shortly");
    expect(() => beginPaymentAttempt({ ...order, stripePaymentIntentId: null }, now)).toThrow("A payment of this order is being processed");
    expect(beginPaymentAttempt({ ...order, stripePaymentIntentId: null, paymentStatus: "FAILED", paymentAttempts: 1 }, now)).toEqual({ attempt: 2 });
  });

  test("an attempt abandoned by a process that died is taken over under its own number, so its keys replay the processor's answer", () => {
    const abandoned = { ...order, paymentAttempts: 4, paymentStartedAt: new Date(now.getTime() - PAYMENT_ATTEMPT_ABANDONED_MS) };
    expect(beginPaymentAttempt(abandoned, now)).toEqual({ attempt: 4 });
  });
});

describe("what an intent says happened", () => {
  const intent = { id: "pi_1", amount: 2079, currency: "usd", lastError: null };
  test("succeeded, canceled and a declined attempt are events; waiting is none", () => {
    expect(eventOfIntent({ ...intent, status: "succeeded" })).toEqual({
      kind: "succeeded",
      processor: "stripe",
      intentId: "pi_1",
      amount: 2079,
      currency: "usd",
    });
    expect(eventOfIntent({ ...intent, status: "canceled" })).toEqual({ kind: "canceled", intentId: "pi_1" });
    expect(eventOfIntent({ ...intent, status: "requires_payment_method", lastError: { code: "card_declined", declineCode: null } })).toEqual({
      kind: "failed",
      intentId: "pi_1",
    });
    for (const status of ["requires_payment_method", "requires_action", "processing"] as const) expect(eventOfIntent({ ...intent, status })).toBeNull();
  });
});

// Where a payment may end up from each status, whatever happens after (written out here, not read from the code under test).
const LATER_PAYMENT: Record<PaymentStatus, PaymentStatus[]> = {
  PENDING: ["FAILED", "PAID", "REFUNDED"],
  FAILED: ["PAID", "REFUNDED"],
  PAID: ["REFUNDED"],
  REFUNDED: [],
};

test("every processor event, on an order in any state, moves it only along the order table (skipped moves allowed) and never back to an earlier payment", () => {
  const events: ProcessorEvent[] = [
    { kind: "succeeded", processor: "stripe", intentId: "pi_1", amount: 2079, currency: "usd" },
    { kind: "succeeded", processor: "stripe", intentId: "pi_2", amount: 2079, currency: "usd" },
    { kind: "succeeded", processor: "square", intentId: "sq_1", amount: 2079, currency: "USD" },
    { kind: "failed", intentId: "pi_1" },
    { kind: "canceled", intentId: "pi_1" },
    { kind: "refunded", intentId: "pi_1", fully: true },
    { kind: "refunded", intentId: "pi_2", fully: true },
  ];
  let moved = 0;
  for (const status of ORDER_STATUSES) {
    for (const paymentStatus of PAYMENT_STATUSES) {
      for (const [paidVia, stripePaymentIntentId] of [
        [null, "pi_1"],
        [null, null],
        ["stripe", "pi_1"],
        ["square", "pi_1"],
      ] as const) {
        const paidReference = paidVia === "square" ? "sq_1" : paidVia && "pi_1";
        const state: State = { status, paymentStatus, stripePaymentIntentId, total: 2079, paidVia, paidReference };
        for (const event of events) {
          const { changes } = decidePayment(state, event);
          if (changes.status) expect(reaches(ORDER_TRANSITIONS, status, changes.status)).toBe(true);
          if (changes.paymentStatus && changes.paymentStatus !== paymentStatus) expect(LATER_PAYMENT[paymentStatus]).toContain(changes.paymentStatus);
          if (changes.status || changes.paymentStatus) moved++;
        }
      }
    }
  }
  expect(moved).toBeGreaterThan(20);
});
