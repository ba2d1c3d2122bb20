import type { ReceivedEvent, WebhookEventLog } from "../../application/ports/events.ts";

export function createMemoryWebhookEventLog(events: Map<string, ReceivedEvent>): WebhookEventLog {
  return {
    async record(event) {
      const key = `${event.provider}:${event.eventId}`;
      if (events.has(key)) return false;
      events.set(key, { ...event });
      return true;
    },
  };
}
