import { failureOf } from "../../domain/errors.ts";
import { INTENT_STOP_LEASE_MS, SHOP_PROCESSOR } from "../../domain/payment.ts";
import { recordAudit } from "../audit.ts";
import { type Applied, type EventDeps, type WebhookEvent, type WebhookMeaning, webhookAudit } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";
import { applyProcessorEvent } from "./apply-processor-event.ts";
import { askForRefund } from "./refunds.ts";
import { stopIntentPaidElsewhere } from "./stop-intents-paid-elsewhere.ts";

/**
 * A payment event of any provider (decisions §8, §11), applied to its order by the domain's rules.
 * An event of the shop's own processor is about its intent, so the order that holds the intent is
 * the one it moves; an intent no order holds (not stored yet: the event came before checkout's
 * last step; or one the order has since replaced) goes to the order its metadata names. Another
 * provider's payment names its order by the id the shop gave it (reference, custom id). Paid through another provider, the
 * order's own intent is then cancelled, so it cannot be paid a second time; money the order does not need is refunded. Both
 * are asked of the processor after the event's transaction.
 */
export async function applyPaymentWebhook(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  meaning: Extract<WebhookMeaning, { kind: "payment" }>,
): Promise<Applied> {
  const ours = meaning.event.kind !== "succeeded" || meaning.event.processor === SHOP_PROCESSOR;
  const orderId = (ours ? await tx.orders.idOfPaymentIntent(meaning.event.intentId) : null) ?? meaning.orderId;
  const order = orderId ? await tx.orders.lock(orderId) : null;
  if (!order) {
    // Money (or its loss) for no order of ours is kept in the audit log, flagged, for staff to look into.
    const { kind, intentId } = meaning.event;
    const changes = { event: kind, intentId, orderId: meaning.orderId, found: false, flagged: true };
    await recordAudit(tx, deps, { ...webhookAudit(event, changes), entityType: "webhook", entityId: null });
    return { outcome: "not_found" };
  }
  const result = await applyProcessorEvent(tx, deps, order, meaning.event, webhookAudit(event));
  const outcome = result.flagged ? "flagged" : result.ignored ? "unchanged" : "applied";
  const { refund } = result;
  // Asked once the event is committed: a redelivery finds the event recorded, and the refund due or made.
  if (refund)
    return {
      outcome,
      afterCommit: async () => {
        await askForRefund(deps, refund);
      },
    };
  const ownIntent = order.stripePaymentIntentId;
  if (ours || outcome !== "applied" || !ownIntent) return { outcome };
  // Due with the payment, so a try that fails below, or a process that dies before it, leaves it for
  // housekeeping to try again once the try's lease is over (stopDueIntents).
  await tx.orders.markIntentStopDue(order.id, new Date(deps.clock.now().getTime() + INTENT_STOP_LEASE_MS));
  return {
    outcome,
    // One the processor had paid meanwhile (a 3-D Secure challenge passed, its own webhook not yet
    // heard, or never to come) cannot be cancelled: it is applied as that webhook would be, flagged,
    // and its money goes back at once (stopPayment). Dropped, that answer left the order charged
    // twice (found by an attack).
    afterCommit: async () => {
      const outcome = await stopIntentPaidElsewhere(deps, { id: order.id, stripePaymentIntentId: ownIntent }, webhookAudit(event).origin).catch(
        // Not stopped (the processor or the database away): still due, for housekeeping to try again.
        (error: unknown) => void deps.logger.warn("payment.intent_not_stopped", { orderId: order.id, intentId: ownIntent, ...failureOf(error) }),
      );
      if (outcome === "processing") deps.logger.warn("payment.intent_processing", { orderId: order.id, intentId: ownIntent });
    },
  };
}
