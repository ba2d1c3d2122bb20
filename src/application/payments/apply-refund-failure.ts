import { recordAudit } from "../audit.ts";
import type { Applied, EventDeps, WebhookEvent, WebhookMeaning } from "../events/webhook-event.ts";
import { webhookAudit } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";

/**
 * A refund that failed after the processor had made it: the money went back to the shop's balance,
 * not to the customer. The order stays as it is (a refunded order is final, and its goods are back
 * on the shelf); the failure is recorded on the order whose payment it was, flagged, and said at
 * error, for staff to return the money another way. One of no order of ours is recorded and flagged
 * all the same.
 */
export async function applyRefundFailure(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  { intentId, refundId, amount, reason }: Extract<WebhookMeaning, { kind: "refund-failed" }>,
): Promise<Applied> {
  // The order whose current intent it is, else the one the shop refunded it for (a late payment's intent, which the order never took).
  // A refund of a charge made without an intent (none of the shop's) names no order.
  const orderId = intentId ? ((await tx.orders.idOfPaymentIntent(intentId)) ?? (await tx.refunds.orderOfIntent(intentId))) : null;
  const changes = { event: "refund_failed", intentId, refundId, amount, reason, ...(orderId ? {} : { found: false }), flagged: true };
  await recordAudit(tx, deps, { ...webhookAudit(event, changes), entityType: orderId ? "order" : "webhook", entityId: orderId });
  return { outcome: "flagged", afterCommit: async () => deps.logger.error("refund.failed", { orderId, intentId, refundId, amount, reason }) };
}
