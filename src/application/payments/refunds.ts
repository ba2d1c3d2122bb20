import { NO_ORIGIN } from "../../domain/audit.ts";
import { DomainError, failureOf } from "../../domain/errors.ts";
import { paymentAfter } from "../../domain/order.ts";
import { REFUND_ATTEMPT_LEASE_MS, REFUND_RETRY_MS, type RefundRecord } from "../../domain/refund.ts";
import { applyToOrder } from "../orders/apply-to-order.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import type { Refund } from "../ports/payments.ts";
import type { NewRefund } from "../ports/refunds.ts";

type RefundDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/** What became of a refund asked for: the processor made it, or it is still due (asked again by housekeeping). */
export type RefundOutcome = "made" | "due";

/**
 * Step 1 of a refund (decisions §14), in the transaction of the change that owes it: the refund is
 * recorded as due, its first attempt the caller's to make once that transaction commits. Null when a
 * refund with its key is recorded already: it has been asked for, and will be again until made.
 */
export function markRefundDue(tx: Repositories, deps: Pick<Deps, "ids" | "clock">, owed: Omit<NewRefund, "id" | "requestedAt">): Promise<RefundRecord | null> {
  const now = deps.clock.now();
  return tx.refunds.markDue({ id: deps.ids.next(), requestedAt: now, ...owed }, new Date(now.getTime() + REFUND_ATTEMPT_LEASE_MS));
}

/**
 * Steps 2 and 3: the processor is asked with no connection held, under the refund's own key (a
 * refund it made already is replayed, not repeated), and its answer settled in a short transaction.
 * A refusal, a processor out of reach or a database lost meanwhile leaves the refund due, with the
 * error kept for staff and housekeeping to try again; never an error for the caller, whose change
 * is committed already.
 */
export async function askForRefund(deps: RefundDeps, refund: RefundRecord): Promise<RefundOutcome> {
  try {
    const made = await deps.payments.refund({ intentId: refund.intentId, idempotencyKey: refund.idempotencyKey }).catch((error: unknown) => {
      // Refunded in full at the processor already (from its dashboard, say): the money is back, and
      // asking again would be refused for ever (found by an attack).
      if (error instanceof DomainError && error.code === "payment.already_refunded") return null;
      throw error;
    });
    await settleRefund(deps, refund, made);
    return "made";
  } catch (error) {
    deps.logger.warn("refund.due", { orderId: refund.orderId, idempotencyKey: refund.idempotencyKey, attempts: refund.attempts, ...failureOf(error) });
    const retryAt = new Date(deps.clock.now().getTime() + REFUND_RETRY_MS);
    await deps.uow
      .transaction((tx) => tx.refunds.markFailed(refund.id, refundError(error), retryAt))
      .catch((e: unknown) => deps.logger.error("refund.not_recorded", { orderId: refund.orderId, ...failureOf(e) }));
    return "due";
  }
}

/** The error kept with a refund still due, for staff: with the processor's own reason when it gave one (the shop's answer names none). */
function refundError(error: unknown): string {
  const { error: message, reason } = failureOf(error);
  const given = error instanceof DomainError && typeof error.details?.reason === "string" ? error.details.reason : reason;
  return given ? `${message}: ${given}` : message;
}

/**
 * The processor's answer (null: it holds the payment refunded in full already), under the order's lock: the refund confirmed and, for an order's own
 * refund, its payment REFUNDED by the payment table (a charge.refunded event heard first has moved
 * it already: then nothing more). A late payment's refund leaves the order as it is. Settled once:
 * a second answer (a replay, or housekeeping's) finds it confirmed and writes nothing.
 */
async function settleRefund(deps: Pick<Deps, "uow" | "ids" | "clock">, refund: RefundRecord, made: Refund | null): Promise<void> {
  await deps.uow.transaction(async (tx) => {
    const order = await tx.orders.lock(refund.orderId);
    if (!(await tx.refunds.markConfirmed(refund.id, deps.clock.now(), made?.id ?? null)) || !order) return;
    const paymentStatus = refund.reason === "order_ended" ? paymentAfter(order.paymentStatus, "refunded") : null;
    await applyToOrder(tx, deps, order, {
      changes: paymentStatus ? { paymentStatus } : {},
      restock: false,
      audit: {
        action: "payment.refunded",
        userId: null,
        origin: NO_ORIGIN,
        changes: {
          intentId: refund.intentId,
          refundId: made?.id ?? null,
          amount: made?.amount ?? refund.amount,
          ...(made ? {} : { refundedAlready: true }),
          reason: refund.reason,
          attempts: refund.attempts,
          from: order.paymentStatus,
          to: paymentStatus ?? order.paymentStatus,
        },
      },
    });
  });
}
