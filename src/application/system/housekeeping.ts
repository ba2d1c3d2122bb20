import type { Deps } from "../ports/index.ts";
import { expireUnpaidOrders } from "../orders/expire-unpaid-orders.ts";
import { retryDueRefunds } from "../payments/retry-due-refunds.ts";
import { periodic } from "./periodic.ts";

/**
 * What the server tidies up now and then: orders not paid in time (cancelled, their stock
 * released), sessions that have ended (a token naming one is refused either way), idempotency
 * keys past their 24 hours, and refunds still due (asked of the processor again). Every
 * instance may run it; each step is safe to run twice at once.
 */
export function createHousekeeping(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  options: { intervalMs: number; orderPaymentTtlMinutes: number },
) {
  async function runOnce() {
    const { expired, paidMeanwhile } = await expireUnpaidOrders(deps, options.orderPaymentTtlMinutes);
    const sessionsPurged = await deps.uow.transaction((tx) => tx.sessions.purgeEnded(deps.clock.now()));
    const idempotencyKeysPurged = await deps.uow.transaction((tx) => tx.idempotency.purgeExpired(deps.clock.now()));
    const refunds = await retryDueRefunds(deps);
    if (expired.length || paidMeanwhile.length || sessionsPurged || idempotencyKeysPurged || refunds.made || refunds.due) {
      deps.logger.info("housekeeping.done", {
        ordersExpired: expired,
        paidMeanwhile,
        sessionsPurged,
        idempotencyKeysPurged,
        refundsMade: refunds.made,
        refundsDue: refunds.due,
      });
    }
    return { ordersExpired: expired.length, sessionsPurged, idempotencyKeysPurged, refundsMade: refunds.made, refundsDue: refunds.due };
  }
  return { runOnce, ...periodic(runOnce, { intervalMs: options.intervalMs, logger: deps.logger, event: "housekeeping.failed" }) };
}
