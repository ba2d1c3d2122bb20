import { recordAudit } from "../audit.ts";
import { type Applied, type EventDeps, type WebhookEvent, type WebhookMeaning, webhookAudit } from "../events/webhook-event.ts";
import type { Repositories } from "../ports/index.ts";

/**
 * The mail provider's word on the shop's mail (decisions §11, Resend): a bounce or a complaint puts
 * every address it names on the suppression list, and their pending mail is marked suppressed (the
 * outbox worker also checks the list before each send); a delivery is marked on the message the
 * provider knows by that id (one it does not know is recorded as not found).
 */
export async function applyMailWebhook(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  meaning: Extract<WebhookMeaning, { kind: "mail-suppression" | "mail-delivered" }>,
): Promise<Applied> {
  const now = deps.clock.now();
  const audit = (entityId: string | null, changes: Record<string, unknown>) =>
    recordAudit(tx, deps, { ...webhookAudit(event, changes), entityType: "email", entityId });
  if (meaning.kind === "mail-delivered") {
    const found = await tx.outbox.markDelivered(meaning.messageId, now);
    await audit(meaning.messageId, found ? { delivered: true } : { found: false });
    return { outcome: found ? "applied" : "not_found" };
  }
  // In one order, whatever the event's: two events naming the same addresses lock their rows alike,
  // where opposite orders deadlocked into a 500 (found by an attack).
  const addresses = [...new Set(meaning.addresses.map((address) => address.trim().toLowerCase()))].sort();
  let suppressedMessages = 0;
  for (const address of addresses) {
    await tx.suppressions.add(address, meaning.reason, now);
    suppressedMessages += await tx.outbox.markSuppressed({ to: address });
  }
  await audit(null, { addresses, reason: meaning.reason, suppressedMessages });
  return { outcome: "applied" };
}
