import type { Deps } from "../ports/index.ts";
import { expireUnpaidOrders } from "../orders/expire-unpaid-orders.ts";
import { periodic } from "./periodic.ts";

/**
 * What the server tidies up now and then: orders not paid in time (cancelled, their stock
 * released) and sessions that have ended (a token naming one is refused either way). Every
 * instance may run it; each step is safe to run twice at once.
 */
export function createHousekeeping(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  options: { intervalMs: number; orderPaymentTtlMinutes: number },
) {
  async function runOnce() {
    const { expired, paidMeanwhile } = await expireUnpaidOrders(deps, options.orderPaymentTtlMinutes);
    const sessionsPurged = await deps.uow.transaction((tx) => tx.sessions.purgeEnded(deps.clock.now()));
    if (expired.length || paidMeanwhile.length || sessionsPurged) deps.logger.info("housekeeping.done", { ordersExpired: expired, paidMeanwhile, sessionsPurged });
    return { ordersExpired: expired.length, sessionsPurged };
  }
  return { runOnce, ...periodic(runOnce, { intervalMs: options.intervalMs, logger: deps.logger, event: "housekeeping.failed" }) };
}
