import { failureOf, isDatabaseBusy } from "../../domain/errors.ts";
import { PAYMENT_ATTEMPT_ABANDONED_MS } from "../../domain/payment.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { expireUnpaidOrders } from "../orders/expire-unpaid-orders.ts";
import { finishStrandedCheckouts } from "../orders/finish-stranded-checkouts.ts";
import { retryDueRefunds } from "../payments/retry-due-refunds.ts";
import { settleAbandonedPayments } from "../payments/settle-abandoned-payments.ts";
import { stopDueIntents } from "../payments/stop-intents-paid-elsewhere.ts";
import { periodic } from "./periodic.ts";

/**
 * How many rows one of a purge's transactions deletes at most. A backlog (housekeeping stopped for a
 * while, or an earlier step failing every run) is purged a batch at a time, each committed alone:
 * deleted in one statement, 3,000,000 ended sessions took 2.7 s holding every one of their rows (a
 * sign-out of all of an account's sessions waited 1.7 s of its 2 s lock limit on it), and under a
 * `statement_timeout` shorter than that the purge was cancelled at every run and never caught up.
 */
export const PURGE_BATCH = 5_000;

/**
 * What the server tidies up now and then: what a crash left for over the grace time (payment
 * attempts never settled, settled from the processor's state; checkouts that never stored their
 * payment intent, given it or undone), orders not paid in time (cancelled, their stock
 * released), sessions that have ended (a token naming one is refused either way), idempotency
 * keys past their 24 hours, refunds still due (asked of the processor again), and the payment
 * intents of orders paid through another provider still to be cancelled. Every instance
 * may run it; each step is safe to run twice at once.
 */
export function createHousekeeping(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger" | "metrics">,
  options: { intervalMs: number; orderPaymentTtlMinutes: number; graceMs?: number },
) {
  const graceMs = options.graceMs ?? PAYMENT_ATTEMPT_ABANDONED_MS;
  async function runOnce() {
    try {
      const done = await tidyUp();
      deps.metrics.housekeepingRun("done");
      return done;
    } catch (error) {
      deps.metrics.housekeepingRun("failed");
      throw error;
    }
  }
  async function tidyUp() {
    // The money first: what a held row or a lost database stops below waits a run, not a payment or a refund.
    const paymentsSettled = await settleAbandonedPayments(deps, graceMs);
    const { intentsStored, undone: checkoutsUndone } = await finishStrandedCheckouts(deps, graceMs);
    const refunds = await retryDueRefunds(deps);
    const intentsStopped = await stopDueIntents(deps);
    const { expired: ordersExpired, paidMeanwhile } = await expireUnpaidOrders(deps, options.orderPaymentTtlMinutes);
    const sessionsPurged = await purge("sessions", (tx) => tx.sessions.purgeEnded(deps.clock.now(), PURGE_BATCH));
    const idempotencyKeysPurged = await purge("idempotency keys", (tx) => tx.idempotency.purgeExpired(deps.clock.now(), PURGE_BATCH));
    const orders = { paymentsSettled, intentsStored, checkoutsUndone, intentsStopped, ordersExpired, paidMeanwhile };
    if (Object.values(orders).some((numbers) => numbers.length > 0) || sessionsPurged || idempotencyKeysPurged || refunds.made || refunds.due) {
      deps.logger.info("housekeeping.done", { ...orders, sessionsPurged, idempotencyKeysPurged, refundsMade: refunds.made, refundsDue: refunds.due });
    }
    return {
      paymentsSettled: paymentsSettled.length,
      intentsStored: intentsStored.length,
      checkoutsUndone: checkoutsUndone.length,
      intentsStopped: intentsStopped.length,
      ordersExpired: ordersExpired.length,
      sessionsPurged,
      idempotencyKeysPurged,
      refundsMade: refunds.made,
      refundsDue: refunds.due,
    };
  }
  /**
   * A purge is tidiness, a batch (PURGE_BATCH) a transaction until one comes back short: one whose
   * rows another session holds past the lock limit is passed over (the next run purges them), so it
   * holds back neither the other purge nor the run's report.
   */
  async function purge(what: string, work: (tx: Repositories) => Promise<number>): Promise<number> {
    let purged = 0;
    try {
      for (;;) {
        const batch = await deps.uow.transaction(work);
        purged += batch;
        if (batch < PURGE_BATCH) return purged;
      }
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      deps.logger.warn("housekeeping.purge_passed_over", { what, ...failureOf(error) });
      return purged;
    }
  }
  return { runOnce, ...periodic(runOnce, { intervalMs: options.intervalMs, logger: deps.logger, event: "housekeeping.failed" }) };
}
