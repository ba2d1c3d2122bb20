import { PAYMENT_ATTEMPT_ABANDONED_MS } from "../../domain/payment.ts";
import type { Deps } from "../ports/index.ts";
import { expireUnpaidOrders } from "../orders/expire-unpaid-orders.ts";
import { settleAbandonedPayments } from "../orders/settle-abandoned-payments.ts";
import { periodic } from "./periodic.ts";

/**
 * What the server tidies up now and then: payment attempts a crash left unsettled for over the
 * grace time (settled from the processor's state), orders not paid in time (cancelled, their stock
 * released), sessions that have ended (a token naming one is refused either way) and idempotency
 * keys past their 24 hours. Every instance may run it; each step is safe to run twice at once.
 */
export function createHousekeeping(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  options: { intervalMs: number; orderPaymentTtlMinutes: number; graceMs?: number },
) {
  const graceMs = options.graceMs ?? PAYMENT_ATTEMPT_ABANDONED_MS;
  async function runOnce() {
    const paymentsSettled = await settleAbandonedPayments(deps, graceMs);
    const { expired, paidMeanwhile } = await expireUnpaidOrders(deps, options.orderPaymentTtlMinutes);
    const sessionsPurged = await deps.uow.transaction((tx) => tx.sessions.purgeEnded(deps.clock.now()));
    const idempotencyKeysPurged = await deps.uow.transaction((tx) => tx.idempotency.purgeExpired(deps.clock.now()));
    if (paymentsSettled.length || expired.length || paidMeanwhile.length || sessionsPurged || idempotencyKeysPurged) {
      deps.logger.info("housekeeping.done", { paymentsSettled, ordersExpired: expired, paidMeanwhile, sessionsPurged, idempotencyKeysPurged });
    }
    return { paymentsSettled: paymentsSettled.length, ordersExpired: expired.length, sessionsPurged, idempotencyKeysPurged };
  }
  return { runOnce, ...periodic(runOnce, { intervalMs: options.intervalMs, logger: deps.logger, event: "housekeeping.failed" }) };
}
