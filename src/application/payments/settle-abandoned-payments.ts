import { NO_ORIGIN } from "../../domain/audit.ts";
import { failureOf, isDatabaseBusy, isRefusingWrites, isDatabaseUnavailable } from "../../domain/errors.ts";
import type { Deps } from "../ports/index.ts";
import type { UnsettledPayment } from "../ports/orders.ts";
import type { PaymentIntent } from "../ports/payments.ts";
import { swept } from "../system/sweep.ts";
import { applyPaymentOutcome } from "./apply-payment-outcome.ts";
import { makeOrderIntent } from "./order-intent.ts";

type SettleDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * Decisions §14, §15: a payment attempt begun over the grace time ago and never settled (its
 * process died while the processor answered, or before it wrote the answer) is settled from the
 * processor's own state of the intent, as payOrder's last step would have settled it: paid, failed,
 * or still waiting on the customer, with its `payment.*` audit entry, and the mark cleared. The
 * intent is the order's, or, for an attempt that had to make a fresh one, the one its key
 * (`order-<id>-attempt-<n>`) finds again. Each order is settled under its lock, skipped while
 * another instance holds it, and only while the attempt is still the one read; one the processor
 * cannot answer for is passed over until the next run, and one that fails otherwise is logged and
 * passed over. Returns the numbers of the orders settled.
 */
export async function settleAbandonedPayments(deps: SettleDeps, graceMs: number): Promise<string[]> {
  // As beginPaymentAttempt counts it: an attempt exactly the grace time old is abandoned.
  const cutOff = new Date(deps.clock.now().getTime() - graceMs);
  const settled: string[] = [];
  for await (const unsettled of swept<UnsettledPayment>((limit, after) => deps.uow.read((db) => db.orders.findPaymentsStartedBy(cutOff, limit, after)))) {
    if (await settle(deps, unsettled)) settled.push(unsettled.orderNumber);
  }
  return settled;
}

async function settle(deps: SettleDeps, unsettled: UnsettledPayment): Promise<boolean> {
  let intent: PaymentIntent;
  try {
    // The attempt's key finds its fresh intent again, but a processor replays the answer it gave
    // then (Stripe keeps a key's first response): where the intent stands now is asked for by its id.
    const intentId = unsettled.stripePaymentIntentId ?? (await makeOrderIntent(deps.payments, unsettled, unsettled.paymentAttempts)).id;
    intent = await deps.payments.retrieveIntent(intentId);
  } catch (error) {
    deps.logger.warn("payment.settle_failed", { orderNumber: unsettled.orderNumber, ...failureOf(error) });
    return false;
  }
  const by = { userId: null, origin: NO_ORIGIN, changes: { attempt: unsettled.paymentAttempts, settledBy: "housekeeping" } };
  try {
    return (await applyPaymentOutcome(deps, unsettled.id, intent, by, { onlyAttemptStartedAt: unsettled.paymentStartedAt })) !== null;
  } catch (error) {
    // Without the database, or with it refusing writes (its disk full, read only), the run ends here (the next one starts over).
    // Anything else is this order's alone: it is passed over, and told of, so the other orders and
    // the run's later steps (expiry, stranded checkouts, refunds due) are not held up by it.
    if (isDatabaseUnavailable(error) || isRefusingWrites(error)) throw error;
    // A row held elsewhere past the lock limit is a wait, not a fault: told of as a warning, and the next run settles it.
    deps.logger[isDatabaseBusy(error) ? "warn" : "error"]("payment.settle_failed", { orderNumber: unsettled.orderNumber, ...failureOf(error) });
    return false;
  }
}
