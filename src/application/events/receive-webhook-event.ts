import { recordAudit } from "../audit.ts";
import { mailEventEffect } from "../mail/mail-event-effect.ts";
import { shipmentEventEffect } from "../orders/shipment-event-effect.ts";
import { paymentEventEffect } from "../payments/payment-event-effect.ts";
import type { Repositories } from "../ports/index.ts";
import { type Applied, type EventDeps, type EventOutcome, type WebhookEffect, type WebhookEvent, webhookAudit } from "./webhook-event.ts";

type Apply<K extends WebhookEffect["kind"]> = (
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  effect: Extract<WebhookEffect, { kind: K }>,
) => Promise<Applied>;

const EFFECTS: { [K in WebhookEffect["kind"]]: Apply<K> } = {
  payment: paymentEventEffect,
  shipment: shipmentEventEffect,
  "mail-suppression": mailEventEffect,
  "mail-delivered": mailEventEffect,
  record: async (tx, deps, event, effect) => {
    await recordAudit(tx, deps, { ...webhookAudit(event, { recorded: true }), entityType: effect.orderId ? "order" : "webhook", entityId: effect.orderId });
    return { outcome: "applied" };
  },
};

/**
 * Every provider's verified event, one pipeline (decisions §8, §11): recorded by the provider's
 * event id in the same transaction as its effect, so a redelivery (or ten at once) changes nothing
 * more and a failure records nothing, so the provider's retry is applied; each applied event has
 * its audit entry `webhook.<provider>`. Types the shop does not act on are acknowledged and dropped.
 */
export async function receiveWebhookEvent(deps: EventDeps, event: WebhookEvent): Promise<EventOutcome> {
  const { effect } = event;
  if (!effect) return "ignored";
  const applied = await deps.uow.transaction(async (tx): Promise<Applied> => {
    if (!(await tx.webhookEvents.record({ provider: event.provider, eventId: event.eventId, type: event.type, receivedAt: deps.clock.now() })))
      return { outcome: "duplicate" };
    return (EFFECTS[effect.kind] as Apply<typeof effect.kind>)(tx, deps, event, effect as never);
  });
  await applied.afterCommit?.();
  if (applied.outcome === "not_found") deps.logger.warn("webhook.not_found", { provider: event.provider, eventId: event.eventId, type: event.type });
  if (applied.outcome === "flagged") deps.logger.warn("webhook.flagged", { provider: event.provider, eventId: event.eventId, type: event.type });
  return applied.outcome;
}
