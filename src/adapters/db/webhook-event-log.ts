import type { WebhookEventLog } from "../../application/ports/events.ts";
import type { Db } from "./database.ts";

export function createPgWebhookEventLog(db: Db): WebhookEventLog {
  return {
    // A redelivery that arrives while the first is still in its transaction waits here on the key,
    // and finds it taken once that commits: each event applied once, however many arrive at once.
    async record(e) {
      const inserted = await db
        .insertInto("webhook_events")
        .values({ provider: e.provider, event_id: e.eventId, type: e.type, received_at: e.receivedAt })
        .onConflict((oc) => oc.columns(["provider", "event_id"]).doNothing())
        .returning("event_id")
        .execute();
      return inserted.length > 0;
    },
  };
}
