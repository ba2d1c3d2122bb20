import { recordAudit } from "../audit.ts";
import { type Applied, type EventDeps, type WebhookEffect, type WebhookEvent, webhookAudit } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";

/**
 * The mail provider's word on the shop's mail (decisions §11, Resend): a bounce or a complaint puts
 * every address it names on the suppression list, and their pending mail is marked suppressed (the
 * outbox worker also checks the list before each send); a delivery is marked on the message the
 * provider knows by that id.
 */
export async function mailEventEffect(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  effect: Extract<WebhookEffect, { kind: "mail-suppression" | "mail-delivered" }>,
): Promise<Applied> {
  const now = deps.clock.now();
  const audit = (entityId: string | null, changes: Record<string, unknown>) =>
    recordAudit(tx, deps, { ...webhookAudit(event, changes), entityType: "email", entityId });
  if (effect.kind === "mail-delivered") {
    const found = await tx.outbox.markDelivered(effect.messageId, now);
    await audit(effect.messageId, { delivered: found });
    return { outcome: found ? "applied" : "not_found" };
  }
  const addresses = [...new Set(effect.addresses.map((address) => address.trim().toLowerCase()))];
  let suppressedMessages = 0;
  for (const address of addresses) {
    await tx.suppressions.add(address, effect.reason, now);
    suppressedMessages += await tx.outbox.markSuppressed({ to: address });
  }
  await audit(null, { addresses, reason: effect.reason, suppressedMessages });
  return { outcome: "applied" };
}
