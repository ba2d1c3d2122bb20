import { recordAudit } from "../audit.ts";
import { applyMailWebhook } from "../mail/apply-mail-webhook.ts";
import { applyShipmentWebhook } from "../orders/apply-shipment-webhook.ts";
import { applyPaymentWebhook } from "../payments/apply-payment-webhook.ts";
import { applyRefundFailure } from "../payments/apply-refund-failure.ts";
import type { Repositories } from "../ports/index.ts";
import { type Applied, type EventDeps, type EventOutcome, type WebhookEvent, type WebhookMeaning, webhookAudit } from "./webhook-event.ts";

type Apply<K extends WebhookMeaning["kind"]> = (
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  meaning: Extract<WebhookMeaning, { kind: K }>,
) => Promise<Applied>;

/** How each kind of event is applied, in the transaction that records it. */
const APPLY: { [K in WebhookMeaning["kind"]]: Apply<K> } = {
  payment: applyPaymentWebhook,
  "refund-failed": applyRefundFailure,
  shipment: applyShipmentWebhook,
  "mail-suppression": applyMailWebhook,
  "mail-delivered": applyMailWebhook,
  record: async (tx, deps, event, meaning) => {
    await recordAudit(tx, deps, { ...webhookAudit(event, { recorded: true }), entityType: meaning.orderId ? "order" : "webhook", entityId: meaning.orderId });
    return { outcome: "applied" };
  },
};

/**
 * Every provider's verified event, one pipeline (decisions §8, §11): recorded by the provider's
 * event id in the same transaction that applies it, so a redelivery (or ten at once) changes nothing
 * more and a failure records nothing, so the provider's retry is applied; each applied event has
 * its audit entry `webhook.<provider>`. Types the shop does not act on are acknowledged and dropped.
 */
export async function receiveWebhookEvent(deps: EventDeps, event: WebhookEvent): Promise<EventOutcome> {
  const { meaning } = event;
  if (!meaning) return "ignored";
  const applied = await deps.uow.transaction(async (tx): Promise<Applied> => {
    if (!(await tx.webhookEvents.record({ provider: event.provider, eventId: event.eventId, type: event.type, receivedAt: deps.clock.now() })))
      return { outcome: "duplicate" };
    return (APPLY[meaning.kind] as Apply<typeof meaning.kind>)(tx, deps, event, meaning as never);
  });
  await applied.afterCommit?.();
  if (applied.outcome === "not_found") deps.logger.warn("webhook.not_found", { provider: event.provider, eventId: event.eventId, type: event.type });
  if (applied.outcome === "flagged") deps.logger.warn("webhook.flagged", { provider: event.provider, eventId: event.eventId, type: event.type });
  return applied.outcome;
}
