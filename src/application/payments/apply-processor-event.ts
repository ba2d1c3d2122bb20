import type { Order } from "../../domain/order.ts";
import { type PaymentDecision, type ProcessorEvent, decidePayment } from "../../domain/payment.ts";
import { type RefundRecord, latePaymentRefundKey } from "../../domain/refund.ts";
import { type OrderChange, applyToOrder } from "../orders/apply-to-order.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { markRefundDue } from "./refunds.ts";

/**
 * What the processor says happened to a payment, applied to the locked order by the domain's
 * rules (with any changes of the caller's own, `also`), with one audit entry whether or not it
 * changes anything. Money the order does not need (it had ended, or another intent paid it) is
 * marked due for refund here, in the caller's transaction, and returned: the caller asks the
 * processor for it once that transaction commits (askForRefund), never inside it. A payment
 * reported refunded in full confirms any refund of it still due, so none is asked again.
 */
export async function applyProcessorEvent(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  order: Order,
  event: ProcessorEvent,
  audit: OrderChange["audit"],
  also: OrderChange["changes"] = {},
): Promise<PaymentDecision & { refund: RefundRecord | null }> {
  const decided = decidePayment(order, event);
  const lateRefund = decided.refundLatePayment && event.kind === "succeeded";
  const refund = lateRefund
    ? await markRefundDue(tx, deps, {
        orderId: order.id,
        intentId: event.intentId,
        idempotencyKey: latePaymentRefundKey(event.intentId),
        reason: "late_payment",
        amount: event.amount,
      })
    : null;
  // The refund recorded already: this payment was heard before (its webhook, and the stop that found
  // the intent paid; or two of its events), and flagged then. Flagged once, not at each hearing.
  const heardBefore = "heard before, its refund recorded then";
  const decision =
    lateRefund && !refund ? { ...decided, flagged: false, ignored: decided.ignored ? `${decided.ignored}; ${heardBefore}` : heardBefore } : decided;
  if (event.kind === "refunded" && event.fully) await tx.refunds.confirmAllOf(event.intentId, deps.clock.now());
  await applyToOrder(tx, deps, order, processorEventChange(order, event, decision, audit, also, refund));
  return { ...decision, refund };
}

/** What applyProcessorEvent writes of the order: the decision's changes (and the caller's own), and the audit entry telling of the event. */
export function processorEventChange(
  order: Order,
  event: ProcessorEvent,
  decision: PaymentDecision,
  audit: OrderChange["audit"],
  also: OrderChange["changes"],
  refund: RefundRecord | null,
): OrderChange {
  const from = { status: order.status, paymentStatus: order.paymentStatus };
  return {
    changes: { ...also, ...decision.changes },
    restock: decision.restock,
    audit: {
      action: audit.action,
      userId: audit.userId,
      origin: audit.origin,
      changes: {
        ...audit.changes,
        event: event.kind,
        ...(event.kind === "succeeded" ? { processor: event.processor, amount: event.amount } : {}),
        intentId: event.intentId,
        from,
        to: { ...from, ...decision.changes },
        ...(decision.ignored ? { ignored: decision.ignored } : {}),
        ...(decision.flagged ? { flagged: true } : {}),
        ...(refund ? { refundDue: refund.amount } : {}),
      },
    },
  };
}
