import type { Order, OrderStatus, PaymentStatus } from "./order.ts";
import { restocksOn } from "./order.ts";

/** A payment intent's statuses at the processor (Stripe's names). */
export type IntentStatus = "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "succeeded" | "canceled";

/** Why a card was refused, in the processor's words. */
export interface Decline {
  code: string;
  declineCode: string | null;
}

export type PaymentAuditAction = "payment.succeeded" | "payment.failed" | "payment.requires_action" | "payment.processing";

type PaymentState = Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId">;
type StateChanges = Partial<Pick<Order, "status" | "paymentStatus" | "stripePaymentIntentId">>;

export interface ConfirmationOutcome {
  changes: StateChanges;
  /** The intent is paid: the caller's answer says success. */
  success: boolean;
  /** A declined card: the order stays payable and the caller learns why (402). */
  decline: Decline | null;
  audit: PaymentAuditAction;
}

/**
 * What a confirmed payment intent means for a payable order (decisions §4): succeeded confirms
 * and pays it; requires_action and processing change nothing (the webhook finishes them); a
 * decline fails the payment, which may be tried again; canceled fails it and lets the intent go,
 * so the next attempt makes a fresh one.
 */
export function confirmationOutcome(intent: { status: IntentStatus; lastError: Decline | null }): ConfirmationOutcome {
  switch (intent.status) {
    case "succeeded":
      return { changes: { status: "CONFIRMED", paymentStatus: "PAID" }, success: true, decline: null, audit: "payment.succeeded" };
    case "requires_action":
      return { changes: {}, success: false, decline: null, audit: "payment.requires_action" };
    case "processing":
      return { changes: {}, success: false, decline: null, audit: "payment.processing" };
    case "canceled":
      return { changes: { paymentStatus: "FAILED", stripePaymentIntentId: null }, success: false, decline: null, audit: "payment.failed" };
    case "requires_payment_method":
    case "requires_confirmation":
      return {
        changes: { paymentStatus: "FAILED" },
        success: false,
        decline: intent.lastError ?? { code: "payment_failed", declineCode: null },
        audit: "payment.failed",
      };
  }
}

/** What the processor reports about a payment after the fact (its webhook), in the shop's terms. */
export type ProcessorEvent =
  | { kind: "succeeded"; intentId: string }
  | { kind: "failed"; intentId: string }
  | { kind: "canceled"; intentId: string }
  | { kind: "refunded"; intentId: string; fully: boolean };

export interface EventEffect {
  changes: StateChanges;
  /** The order's goods go back to stock. */
  restock: boolean;
  /** Money arrived for an order that had already ended: it goes back to the customer. */
  refundLatePayment: boolean;
  /** Why nothing changed, when nothing does. */
  ignored: string | null;
}

const ignore = (why: string): EventEffect => ({ changes: {}, restock: false, refundLatePayment: false, ignored: why });
const effect = (changes: StateChanges, more: Partial<EventEffect> = {}): EventEffect => ({ changes, restock: false, refundLatePayment: false, ignored: null, ...more });
const ENDED: readonly OrderStatus[] = ["CANCELLED", "REFUNDED"];
const SETTLED: readonly PaymentStatus[] = ["PAID", "REFUNDED"];

/**
 * A processor event applied to an order, monotonically (decisions §8): whatever order events
 * arrive in, and however often, the order ends where the payment really is. A paid order never
 * goes back; a refund is final; a failure of an intent the order no longer uses is stale. A
 * refund that arrives before the payment's own success still ends the order REFUNDED with its
 * stock back, as the two in order would have.
 */
export function processorEventEffect(order: PaymentState, event: ProcessorEvent): EventEffect {
  switch (event.kind) {
    case "succeeded":
      if (SETTLED.includes(order.paymentStatus)) return ignore(`payment is already ${order.paymentStatus}`);
      if (ENDED.includes(order.status)) return effect({ paymentStatus: "REFUNDED", stripePaymentIntentId: event.intentId }, { refundLatePayment: true });
      return effect({ status: "CONFIRMED", paymentStatus: "PAID", stripePaymentIntentId: event.intentId });
    case "failed":
    case "canceled": {
      if (SETTLED.includes(order.paymentStatus)) return ignore(`payment is already ${order.paymentStatus}`);
      if (order.status !== "PENDING") return ignore(`order is ${order.status}`);
      if (order.stripePaymentIntentId !== event.intentId) return ignore("not the order's current payment intent");
      const forget = event.kind === "canceled" ? { stripePaymentIntentId: null } : {};
      if (order.paymentStatus === "FAILED" && event.kind === "failed") return ignore("payment is already FAILED");
      return effect({ paymentStatus: "FAILED", ...forget });
    }
    case "refunded":
      if (!event.fully) return ignore("a partial refund leaves the order as it is");
      if (order.paymentStatus === "REFUNDED") return ignore("payment is already REFUNDED");
      if (order.status === "CANCELLED") return effect({ paymentStatus: "REFUNDED" });
      return effect({ status: "REFUNDED", paymentStatus: "REFUNDED" }, { restock: restocksOn(order.status, "REFUNDED") });
  }
}
