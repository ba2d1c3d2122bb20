import type { AuditAction, RequestOrigin } from "../../domain/audit.ts";
import type { Order } from "../../domain/order.ts";
import { type EventEffect, type ProcessorEvent, processorEventEffect } from "../../domain/payment.ts";
import { type OrderChange, applyToOrder } from "../orders/apply-to-order.ts";
import type { Deps, Repositories } from "../ports/index.ts";

/**
 * What the processor says happened to a payment, applied to the locked order by the domain's
 * rules (with any changes of the caller's own, `also`), with one audit entry whether or not it
 * changes anything. Money the order does not need (it had ended, or another intent paid it) is
 * refunded here, inside the transaction: if the refund is refused, nothing is written and the
 * event is applied again when it comes again.
 */
export async function applyProcessorEvent(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock" | "payments">,
  order: Order,
  event: ProcessorEvent,
  audit: { action: AuditAction; userId: string | null; origin: RequestOrigin; changes: Record<string, unknown> },
  also: OrderChange["changes"] = {},
): Promise<EventEffect> {
  const effect = processorEventEffect(order, event);
  if (effect.refundLatePayment) await deps.payments.refund({ intentId: event.intentId, idempotencyKey: `late-payment-${event.intentId}` });
  const from = { status: order.status, paymentStatus: order.paymentStatus };
  await applyToOrder(tx, deps, order, {
    changes: { ...also, ...effect.changes },
    restock: effect.restock,
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
        to: { ...from, ...effect.changes },
        ...(effect.ignored ? { ignored: effect.ignored } : {}),
        ...(effect.flagged ? { flagged: true } : {}),
      },
    },
  });
  return effect;
}
