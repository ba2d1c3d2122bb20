import type { UseCases } from "../../application/use-cases.ts";
import type { PaymentIntent } from "../../application/ports/payments.ts";
import type { WebhookOutcome } from "../../application/ports/metrics.ts";
import { messageOf } from "../../domain/errors.ts";
import { eventOfIntent } from "../../domain/payment.ts";
import type { FakeProcessor } from "./fake-processor.ts";

/**
 * The fake's event about an intent (a 3-D Secure answer), taken by the shop as Stripe's webhook
 * would be (the same pipeline: an event id taken twice changes nothing twice), then let go. One the
 * shop could not take (its database away, the process killed before it) stays, for
 * redeliverFakeEvents. One taken but not let go (the database gone in between) is only delivered
 * again, and found a duplicate: the shop's answer stands.
 */
export async function deliverFakeEvent(useCases: UseCases, fake: FakeProcessor, { intent, eventId }: { intent: PaymentIntent; eventId: string }) {
  const event = eventOfIntent(intent);
  const type =
    intent.status === "succeeded" ? "payment_intent.succeeded" : intent.status === "canceled" ? "payment_intent.canceled" : "payment_intent.payment_failed";
  const orderId = intent.metadata.orderId ?? null;
  const outcome: WebhookOutcome = event
    ? await useCases.receiveWebhookEvent({ provider: "stripe", eventId, type, meaning: { kind: "payment", event, orderId } })
    : "ignored";
  await fake.eventDelivered(eventId).catch(() => undefined);
  return outcome;
}

/**
 * As Stripe delivers a webhook again until the shop answers it: the fake's events the shop has not
 * taken after `waitedMs`, delivered again, each on its own. Each tells of its intent as it is now,
 * not as it was: a failed answer delivered late, after the customer began another attempt of the
 * same intent, would otherwise mark that attempt failed (found by an attack); as it is now, it says
 * what the intent's latest answer says (an attempt waiting on its challenge says nothing). One
 * that fails is due again later each time (the ledger's back-off), so events that keep failing
 * hold up none of the others. Every instance runs this; an event two deliver at once is taken
 * once, and the second finds it a duplicate, which is not counted. What this run delivered, and
 * what failed.
 */
export async function redeliverFakeEvents(
  useCases: UseCases,
  fake: FakeProcessor,
  waitedMs: number,
): Promise<{ delivered: number; failed: Array<{ eventId: string; error: string }> }> {
  let delivered = 0;
  const failed: Array<{ eventId: string; error: string }> = [];
  for (const event of await fake.undeliveredEvents(waitedMs)) {
    try {
      const now = { intent: await fake.retrieveIntent(event.intent.id), eventId: event.eventId };
      if ((await deliverFakeEvent(useCases, fake, now)) !== "duplicate") delivered++;
    } catch (error) {
      const backOff = await fake.eventFailed(event.eventId).then(
        () => "",
        (e: unknown) => `; its back-off not kept: ${messageOf(e)}`,
      );
      failed.push({ eventId: event.eventId, error: `${messageOf(error)}${backOff}` });
    }
  }
  return { delivered, failed };
}
