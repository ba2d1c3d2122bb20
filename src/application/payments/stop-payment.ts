import type { RequestOrigin } from "../../domain/audit.ts";
import type { Order } from "../../domain/order.ts";
import { eventOfIntent, paymentInProgress } from "../../domain/payment.ts";
import type { Deps, SingleStatementWrites } from "../ports/index.ts";
import { applyProcessorEvent } from "./apply-processor-event.ts";
import { askForRefund } from "./refunds.ts";

export type StoppedPayment = { intentId: string | null; outcome: "stopped" | "paid" | "processing" };
export type StopDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/** Rounds of "stop the payment, then move the order" before giving up on an order that keeps getting a new payment intent. */
const ROUNDS = 3;

/**
 * Before an unpaid order ends, its payment intent is cancelled at the processor, so it can never
 * be paid afterwards. An intent that had already succeeded cannot be: the order is settled as paid
 * right here (as the processor's webhook would settle it), so the caller goes on with a paid order;
 * `withSettlement` is written in that settlement's transaction. One still processing is left alone.
 * A processor that cannot be reached stops the caller.
 */
export async function stopPayment(
  deps: StopDeps,
  order: Pick<Order, "id" | "stripePaymentIntentId">,
  origin: RequestOrigin,
  why: string,
  withSettlement?: (tx: SingleStatementWrites) => Promise<void>,
): Promise<StoppedPayment> {
  const intentId = order.stripePaymentIntentId;
  if (!intentId) return { intentId, outcome: "stopped" };
  const intent = await deps.payments.cancelIntent(intentId);
  if (intent.status === "processing") return { intentId, outcome: "processing" };
  const event = eventOfIntent(intent);
  if (event?.kind !== "succeeded") return { intentId, outcome: "stopped" };
  const refund = await deps.uow.transaction(async (tx) => {
    const locked = await tx.orders.lock(order.id);
    if (!locked) return null;
    await withSettlement?.(tx);
    return (await applyProcessorEvent(tx, deps, locked, event, { action: "payment.succeeded", userId: null, origin, changes: { foundWhen: why } })).refund;
  });
  // Ended meanwhile by someone else, the order needs the money no more: it goes back.
  if (refund) await askForRefund(deps, refund);
  return { intentId, outcome: "paid" };
}

/**
 * A move of an order whose payment may have to be stopped first, holding nothing: `check` reads the
 * order afresh and refuses what may not be done, answering the order whose payment is to be stopped
 * (null: none); then `move` makes the move under the order's lock, null when the order got a payment
 * intent other than the one stopped. That goes round again, as does a payment found paid (settled
 * now: the next check sees it); one still processing, or an order given a new intent at each of
 * ROUNDS moves, is 409 (payment.in_progress).
 */
export async function stopPaymentThenMove<T>(
  deps: StopDeps,
  origin: RequestOrigin,
  why: string,
  check: () => Promise<Pick<Order, "id" | "stripePaymentIntentId"> | null>,
  move: (stopped: StoppedPayment | null) => Promise<T | null>,
): Promise<T> {
  // A round that found the payment paid tried no move, so it does not count against ROUNDS: the
  // next check sees the order paid, and refuses or moves it as such. The tries are bounded all the
  // same, as a payment that was not applied (another amount) leaves the order unpaid, found paid again.
  for (let moves = 0, tries = 0; moves < ROUNDS && tries < 2 * ROUNDS; tries++) {
    const order = await check();
    const stopped = order ? await stopPayment(deps, order, origin, why) : null;
    if (stopped?.outcome === "processing") throw paymentInProgress();
    if (stopped?.outcome === "paid") continue;
    moves++;
    const moved = await move(stopped);
    if (moved) return moved;
  }
  throw paymentInProgress();
}
