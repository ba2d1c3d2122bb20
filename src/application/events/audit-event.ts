import type { Repositories } from "../ports/index.ts";
import type { EventDeps } from "./receive-webhook-event.ts";
import type { WebhookEvent } from "./webhook-event.ts";

/**
 * The audit entry `webhook.<provider>` of an event that found nothing to move (or is only recorded):
 * what it said, about which entity, and by whom (no one: the provider).
 */
export function auditEvent(
  tx: Repositories,
  deps: EventDeps,
  event: WebhookEvent,
  entity: { type: string; id: string | null },
  changes: Record<string, unknown>,
): Promise<void> {
  return tx.audit.record({
    id: deps.ids.next(),
    userId: null,
    action: `webhook.${event.provider}`,
    entityType: entity.type,
    entityId: entity.id,
    changes: { eventId: event.eventId, type: event.type, ...changes },
    ipAddress: null,
    userAgent: null,
    createdAt: deps.clock.now(),
  });
}
