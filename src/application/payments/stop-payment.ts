import type { RequestOrigin } from "../../domain/audit.ts";
import type { Order } from "../../domain/order.ts";
import { eventOfIntent } from "../../domain/payment.ts";
import type { Deps } from "../ports/index.ts";
import { applyProcessorEvent } from "./apply-processor-event.ts";
import { askForRefund } from "./refunds.ts";

export type StoppedPayment = { intentId: string | null; outcome: "stopped" | "paid" | "processing" };

/**
 * Before an unpaid order ends, its payment intent is cancelled at the processor, so it can never
 * be paid afterwards. An intent that had already succeeded cannot be: the order is settled as paid
 * right here (as the processor's webhook would settle it), so the caller goes on with a paid order.
 * One still processing is left alone. A processor that cannot be reached stops the caller.
 */
export async function stopPayment(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  order: Pick<Order, "id" | "stripePaymentIntentId">,
  origin: RequestOrigin,
  why: string,
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
    return (await applyProcessorEvent(tx, deps, locked, event, { action: "payment.succeeded", userId: null, origin, changes: { foundWhen: why } })).refund;
  });
  // Ended meanwhile by someone else, the order needs the money no more: it goes back.
  if (refund) await askForRefund(deps, refund);
  return { intentId, outcome: "paid" };
}
