import { describe, expect, test } from "bun:test";
import type { ContractTarget } from "./targets.ts";

export function webhookEventLogContract(target: () => ContractTarget) {
  describe("WebhookEventLog", () => {
    const event = (eventId: string, provider = "stripe") => ({
      provider,
      eventId,
      type: "payment_intent.succeeded",
      receivedAt: new Date("2026-11-23T10:00:00Z"),
    });
    const record = (e: ReturnType<typeof event>) => target().uow.transaction((tx) => tx.webhookEvents.record(e));

    test("an event is recorded once: a redelivery is told it was seen", async () => {
      expect(await record(event("evt_1"))).toBe(true);
      expect(await record(event("evt_1"))).toBe(false);
      expect(await record(event("evt_2"))).toBe(true);
    });

    test("ids are the provider's own: the same id from another provider is another event", async () => {
      expect(await record(event("evt_1", "stripe"))).toBe(true);
      expect(await record(event("evt_1", "square"))).toBe(true);
    });

    test("a record made in a transaction that fails is not kept, so the redelivery is handled", async () => {
      await target()
        .uow.transaction(async (tx) => {
          expect(await tx.webhookEvents.record(event("evt_1"))).toBe(true);
          throw new Error("applying the event failed");
        })
        .catch(() => undefined);
      expect(await record(event("evt_1"))).toBe(true);
    });
  });
}
