import { NO_ORIGIN, type RequestOrigin } from "../../domain/audit.ts";
import { failureOf, isDatabaseUnavailable, isRefusingWrites } from "../../domain/errors.ts";
import type { Order } from "../../domain/order.ts";
import { INTENT_STOP_LEASE_MS } from "../../domain/payment.ts";
import type { SingleStatementWrites } from "../ports/index.ts";
import { workThroughDue } from "../system/work-through-due.ts";
import { type StopDeps, type StoppedPayment, stopPayment } from "./stop-payment.ts";

/** How many orders one claim takes; a run claims on until none is due, or for as long as workThroughDue allows. */
const BATCH = 20;

/**
 * The intent of an order paid through another provider, cancelled so it cannot be paid a second
 * time (stopPayment: one the processor had paid meanwhile is settled as its webhook would settle it,
 * flagged, and its money sent back). Once stopped, or paid and sent back, it is due no more: found
 * paid, in the transaction that settles it, so a crash after that commit cannot settle it again
 * (a second flagged entry) at a later run. One still processing stays due, and is asked again when
 * its lease ends (the processor's webhook may settle it first). A processor or database out of
 * reach throws, leaving it due.
 */
export async function stopIntentPaidElsewhere(
  deps: StopDeps,
  order: Pick<Order, "id" | "stripePaymentIntentId">,
  origin: RequestOrigin,
): Promise<StoppedPayment["outcome"]> {
  const dueNoMore = (db: SingleStatementWrites) => db.orders.markIntentStopDue(order.id, null);
  const { outcome } = await stopPayment(deps, order, origin, "paid_elsewhere", dueNoMore);
  if (outcome === "stopped") await deps.uow.write(dueNoMore);
  return outcome;
}

/**
 * Housekeeping's step: every intent still due to be cancelled (its first try, right after the
 * payment through another provider, failed, or its process died) is tried again. Each is claimed
 * with a lease, so instances running at once never try the same one, and one that fails is tried
 * again at a later run (a run claims no more once it has lasted a lease, so it tries each at most
 * once). A database out of reach or refusing writes ends the run; anything else
 * passes the order over, said at warn. Returns the numbers of the orders whose intent was stopped.
 */
export async function stopDueIntents(deps: StopDeps): Promise<string[]> {
  const stopped: string[] = [];
  await workThroughDue(
    deps.clock,
    { batch: BATCH, windowMs: INTENT_STOP_LEASE_MS },
    (now) => deps.uow.write((db) => db.orders.claimIntentStopsDue(now, new Date(now.getTime() + INTENT_STOP_LEASE_MS), BATCH)),
    async (order) => {
      try {
        if ((await stopIntentPaidElsewhere(deps, order, NO_ORIGIN)) !== "processing") stopped.push(order.orderNumber);
      } catch (error) {
        if (isDatabaseUnavailable(error) || isRefusingWrites(error)) throw error;
        deps.logger.warn("payment.intent_not_stopped", { orderId: order.id, intentId: order.stripePaymentIntentId, ...failureOf(error) });
      }
    },
  );
  return stopped;
}
