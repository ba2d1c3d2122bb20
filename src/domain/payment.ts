import { DomainError } from "./errors.ts";
import type { Cents } from "./money.ts";
import type { Order, PaymentStatus } from "./order.ts";
import { ORDER_TRANSITIONS, type PaymentFact, isFinalStatus, payability, paymentAfter, reaches, restocksOn } from "./order.ts";

/** A payment intent's statuses at the processor (Stripe's names; the shop captures automatically, so never requires_capture). */
export const INTENT_STATUSES = ["requires_payment_method", "requires_confirmation", "requires_action", "processing", "succeeded", "canceled"] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

/**
 * How long an attempt may wait on the processor before it counts as abandoned (its process died):
 * longer than the processor adapter's own worst case (three 20-second tries). The default of the
 * shop's grace time (HOUSEKEEPING_GRACE_SECONDS), which may only lengthen it in production.
 */
export const PAYMENT_ATTEMPT_ABANDONED_MS = 2 * 60_000;

/**
 * How long a try at cancelling the intent of an order paid through another provider may take before
 * housekeeping tries again (as a refund's, longer than the processor adapter's worst case); one
 * still processing is asked again as often.
 */
export const INTENT_STOP_LEASE_MS = PAYMENT_ATTEMPT_ABANDONED_MS;

/**
 * The pauses of a payment that finds another attempt of its order under way (decisions §4: payments
 * of one order are serialized), each followed by a fresh look at the order: some 2 s in all, as
 * long as the shop waits for a row's lock. Short at first, as the fake processor answers within
 * milliseconds and Stripe within a second or two.
 */
export const PAYMENT_TURN_PAUSES_MS: readonly number[] = [10, 20, 40, 80, 160, 250, 250, 250, 250, 250, 250, 250];

/**
 * The most payments of one order that wait their turn in one process; past them a payment is 409 at
 * once. Each waiter looks at the order after each pause: 300 payments of one order behind a slow
 * Stripe read it some 4,000 times in two seconds, and every other request waited on the database.
 * A customer's double click or retry is well within it.
 */
export const PAYMENT_WAITERS_PER_ORDER = 4;

/**
 * Starts an attempt at paying an order (decisions §4): refused when it is already paid or not
 * payable (in that order), or while another attempt waits on the processor, or while checkout is
 * still making its first payment intent. An attempt abandoned by a process that died (older than
 * `abandonedAfterMs`) keeps its number, so its idempotency keys replay whatever the processor did for it.
 */
export function beginPaymentAttempt(
  order: Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId" | "paymentAttempts" | "paymentStartedAt">,
  now: Date,
  abandonedAfterMs = PAYMENT_ATTEMPT_ABANDONED_MS,
): { attempt: number } {
  const why = payability(order);
  if (why === "order.already_paid") throw new DomainError(why, "Order has already been paid");
  if (why === "order.not_payable")
    throw new DomainError(why, "Order cannot be paid in its current status", { status: order.status, paymentStatus: order.paymentStatus });
  const abandoned = order.paymentStartedAt !== null && now.getTime() - order.paymentStartedAt.getTime() >= abandonedAfterMs;
  if (order.paymentStartedAt !== null && !abandoned) throw paymentInProgress();
  if (awaitsFirstIntent(order)) throw paymentInProgress();
  return { attempt: abandoned ? Math.max(order.paymentAttempts, 1) : order.paymentAttempts + 1 };
}

/** A payment attempt's mark on its order: its number, and when it began (a takeover keeps the number, not the time). */
export interface AttemptMark {
  attempts: number;
  startedAt: Date;
}

/** Whether the order still carries this attempt's mark: not settled since, nor taken over by a newer attempt. */
export const isMarkedBy = (order: Pick<Order, "paymentAttempts" | "paymentStartedAt">, mark: AttemptMark): boolean =>
  order.paymentAttempts === mark.attempts && order.paymentStartedAt?.getTime() === mark.startedAt.getTime();

export const paymentInProgress = () => new DomainError("payment.in_progress", "A payment of this order is being processed; try again shortly");

/** Why a card was refused, in the processor's words. */
export interface Decline {
  code: string;
  declineCode: string | null;
}

export type PaymentAuditAction = "payment.succeeded" | "payment.failed" | "payment.requires_action" | "payment.processing";

/** The processor the shop takes payments through with its own intents (Stripe, or the fake that plays it). */
export const SHOP_PROCESSOR = "stripe";

/**
 * No payment intent, and never a failed payment: the order's checkout has not stored its first
 * intent yet (it is still running, or its process died there and housekeeping will), so no
 * payment may touch it.
 */
export const awaitsFirstIntent = (order: Pick<Order, "stripePaymentIntentId" | "paymentStatus">): boolean =>
  order.stripePaymentIntentId === null && order.paymentStatus === "PENDING";

type PaymentState = Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId" | "total" | "paidVia" | "paidReference">;
type StateChanges = Partial<Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId" | "paidVia" | "paidReference">>;

export interface ConfirmationOutcome {
  /** The intent is paid: the caller's answer says success. */
  success: boolean;
  /** A declined card: the order stays payable and the caller learns why (402). */
  decline: Decline | null;
  audit: PaymentAuditAction;
}

/**
 * What a confirmed payment intent means for the caller (decisions §4): succeeded is success;
 * requires_action and processing are not yet (the webhook finishes them); a decline is told with
 * its reasons. What it means for the order is the intent's event (eventOfIntent), applied as any.
 */
export function confirmationOutcome(intent: { status: IntentStatus; lastError: Decline | null }): ConfirmationOutcome {
  switch (intent.status) {
    case "succeeded":
      return { success: true, decline: null, audit: "payment.succeeded" };
    case "requires_action":
      return { success: false, decline: null, audit: "payment.requires_action" };
    case "processing":
      return { success: false, decline: null, audit: "payment.processing" };
    case "canceled":
      return { success: false, decline: null, audit: "payment.failed" };
    case "requires_payment_method":
    case "requires_confirmation":
      return {
        success: false,
        decline: intent.lastError ?? { code: "payment_failed", declineCode: null },
        audit: "payment.failed",
      };
  }
}

/** What the processor reports about a payment after the fact (its webhook), in the shop's terms. */
export type ProcessorEvent =
  /** `processor`: who took the money (SHOP_PROCESSOR, or another provider such as square); `intentId` is its id of the payment. */
  | { kind: "succeeded"; processor: string; intentId: string; amount: Cents; currency: string }
  | { kind: "failed"; intentId: string }
  | { kind: "canceled"; intentId: string }
  | { kind: "refunded"; intentId: string; fully: boolean };

/**
 * What an intent, as the processor answered for it, says happened to its payment: a success, a
 * failed attempt, a cancellation; null while it waits (for a method, an action, the bank).
 */
export function eventOfIntent(intent: { id: string; status: IntentStatus; amount: Cents; currency: string; lastError: Decline | null }): ProcessorEvent | null {
  if (intent.status === "succeeded")
    return { kind: "succeeded", processor: SHOP_PROCESSOR, intentId: intent.id, amount: intent.amount, currency: intent.currency };
  if (intent.status === "canceled") return { kind: "canceled", intentId: intent.id };
  if (intent.status === "requires_payment_method" && intent.lastError) return { kind: "failed", intentId: intent.id };
  return null;
}

/** What a processor event does to an order (decidePayment): the caller applies it (applyProcessorEvent). */
export interface PaymentDecision {
  changes: StateChanges;
  /** The order's goods go back to stock. */
  restock: boolean;
  /** Money arrived that the order does not need (it had ended, or was paid already): it goes back to the customer. */
  refundLatePayment: boolean;
  /** Why nothing changed, when nothing does. */
  ignored: string | null;
  /** For someone to look at: money that did not fit (another amount, a second payment through another provider). */
  flagged: boolean;
}

const change = (changes: StateChanges, more: Partial<PaymentDecision> = {}): PaymentDecision => ({
  changes,
  restock: false,
  refundLatePayment: false,
  ignored: null,
  flagged: false,
  ...more,
});
const ignore = (why: string): PaymentDecision => ({ changes: {}, restock: false, refundLatePayment: false, ignored: why, flagged: false });
const flag = (why: string, more: Partial<PaymentDecision> = {}): PaymentDecision => ({ ...ignore(why), flagged: true, ...more });

/**
 * Who was paid and for which payment; an order not yet paid is its own intent's to pay (orders
 * paid before providers were told apart were all paid through the shop's processor).
 */
export function paidWith(order: PaymentState): { via: string; reference: string | null } {
  return { via: order.paidVia ?? SHOP_PROCESSOR, reference: order.paidReference ?? order.stripePaymentIntentId };
}
/** A payment that can no longer be paid has been: it is PAID, or was and is REFUNDED (by the payment table). */
const settled = (status: PaymentStatus) => paymentAfter(status, "paid") === null;
/** The fact's payment status, by the table, as a change; none when the fact changes nothing. */
const moved = (status: PaymentStatus, fact: PaymentFact): StateChanges => {
  const after = paymentAfter(status, fact);
  return after ? { paymentStatus: after } : {};
};

/**
 * What a processor event does to an order, decided monotonically (decisions §8): whatever order events
 * arrive in, and however often, the order ends where the payment really is. A paid order never
 * goes back; a refund is final; a failure of an intent the order no longer uses is stale; a
 * success moves only a PENDING order to CONFIRMED (staff may have moved an unpaid order on). A
 * refund that arrives before the payment's own success still ends the order REFUNDED with its
 * stock back, as the two in order would have. An order is paid once, whichever provider says so
 * first (decisions §11): a payment for the wrong amount, or a second one through another
 * provider, is flagged and never applied; money through the shop's own processor that the order
 * does not need (it ended, or a second intent paid it) is sent back. The payment's status is the
 * payment table's (PAYMENT_MOVES) for what happened; the order's moves along a path of the order
 * table, the moves an out-of-order event skips included: one that did not would be a bug here,
 * and is thrown rather than written.
 */
export function decidePayment(order: PaymentState, event: ProcessorEvent): PaymentDecision {
  const result = decide(order, event);
  const { status } = result.changes;
  if (status && status !== order.status && !reaches(ORDER_TRANSITIONS, order.status, status)) {
    throw new Error(`a ${event.kind} event would move an order ${order.status} to ${status}, off the status table`);
  }
  return result;
}

function decide(order: PaymentState, event: ProcessorEvent): PaymentDecision {
  switch (event.kind) {
    case "succeeded": {
      if (event.amount !== order.total || event.currency.toLowerCase() !== "usd") {
        return flag(`paid ${event.amount} ${event.currency.toLowerCase()}, but the order's total is ${order.total} usd: not applied`);
      }
      const ours = event.processor === SHOP_PROCESSOR;
      if (settled(order.paymentStatus)) {
        const { via, reference } = paidWith(order);
        if (via === event.processor && reference === event.intentId) return ignore(`payment is already ${order.paymentStatus}`);
        const again = `paid again through ${event.processor} (${event.intentId}), after ${via} (${reference})`;
        // Paid, or paid and refunded since: the order needs no more of the shop's processor's money.
        if (ours) return flag(`${again}: refunded`, { refundLatePayment: true });
        return flag(`${again}: not applied`);
      }
      const paid = moved(order.paymentStatus, "paid");
      if (isFinalStatus(order.status)) {
        if (!ours) return flag(`paid through ${event.processor} after the order was ${order.status}: not applied`);
        // Paid, and at once sent back: the order needs no money any more.
        const sentBack = moved(paid.paymentStatus!, "refunded");
        return change(
          { ...sentBack, stripePaymentIntentId: event.intentId, paidVia: SHOP_PROCESSOR, paidReference: event.intentId },
          { refundLatePayment: true },
        );
      }
      return change({
        ...(order.status === "PENDING" ? { status: "CONFIRMED" as const } : {}),
        ...paid,
        paidVia: event.processor,
        paidReference: event.intentId,
        ...(ours ? { stripePaymentIntentId: event.intentId } : {}),
      });
    }
    case "failed":
    case "canceled": {
      if (settled(order.paymentStatus)) return ignore(`payment is already ${order.paymentStatus}`);
      if (order.status !== "PENDING") return ignore(`order is ${order.status}`);
      if (order.stripePaymentIntentId !== event.intentId) return ignore("not the order's current payment intent");
      const failed = moved(order.paymentStatus, "failed");
      // A cancelled intent is let go, so the next attempt makes a fresh one, even when the payment had already failed.
      if (event.kind === "canceled") return change({ ...failed, stripePaymentIntentId: null });
      return failed.paymentStatus ? change(failed) : ignore(`payment is already ${order.paymentStatus}`);
    }
    case "refunded": {
      if (!event.fully) return ignore("a partial refund leaves the order as it is");
      // Refunds come from the shop's own processor. Of a paid order, only a refund of the payment it
      // was paid with moves it. An unpaid one was paid and refunded before the success was heard: by
      // its current intent, if it has one (another intent never paid it), or by the one it let go.
      if (settled(order.paymentStatus)) {
        const { via, reference } = paidWith(order);
        if (via !== SHOP_PROCESSOR || reference !== event.intentId)
          return ignore(`a refund of a payment the order was not paid with (${event.intentId}): recorded`);
      } else if (order.stripePaymentIntentId !== null && order.stripePaymentIntentId !== event.intentId) {
        return ignore(`a refund of an intent that is not the order's current payment intent (${event.intentId}): recorded`);
      }
      const refunded = moved(order.paymentStatus, "refunded");
      if (!refunded.paymentStatus) return ignore(`payment is already ${order.paymentStatus}`);
      const paid = { ...refunded, paidVia: SHOP_PROCESSOR, paidReference: event.intentId };
      // An order that already ended put its goods back then.
      if (isFinalStatus(order.status)) return change(paid);
      return change({ status: "REFUNDED", ...paid }, { restock: restocksOn(order.status, "REFUNDED") });
    }
  }
}
