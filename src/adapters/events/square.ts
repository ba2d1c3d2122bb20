import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import { PROVIDER_ID, currencyCode, eventType, hmacSha256, invalidSignature, orderIdOf, readJson, readPart, sameSignature } from "./read.ts";

const eventShape = z.object({ event_id: z.string().regex(PROVIDER_ID), type: eventType, data: z.unknown().optional() });
/** A payment.updated is acted on when its payment is COMPLETED; only then is the rest of it read. */
const completed = z.object({ object: z.object({ payment: z.object({ status: z.literal("COMPLETED") }) }) });
const paymentShape = z.object({
  object: z.object({
    payment: z.object({
      id: z.string().regex(PROVIDER_ID),
      reference_id: z.string().max(255).nullish(),
      amount_money: z.object({ amount: z.number().int().min(0), currency: currencyCode }),
    }),
  }),
});

/**
 * Square (decisions §11): `x-square-hmacsha256-signature`, the base64 HMAC-SHA256 of the
 * notification URL followed by the raw body, keyed with the subscription's signature key (as the
 * `square` SDK's WebhooksHelper computes it; the SDK is not taken in for one HMAC), compared in
 * constant time. A COMPLETED payment pays the order named by its `reference_id`, as a Stripe
 * success does.
 */
export function squareWebhookVerifier(signatureKey: string | null, notificationUrl: string): WebhookVerifier | null {
  if (!signatureKey) return null;
  return async (payload, headers) => {
    const expected = hmacSha256(signatureKey, notificationUrl, payload).toString("base64");
    if (!sameSignature(expected, headers.get("x-square-hmacsha256-signature") ?? "")) throw invalidSignature();
    const event = readJson(payload, eventShape, "a Square event");
    const base = { provider: "square", eventId: event.event_id, type: event.type };
    if (event.type !== "payment.updated" || !completed.safeParse(event.data).success) return { ...base, meaning: null };
    const { payment } = readPart(event.data, paymentShape, "a Square payment").object;
    const { amount, currency } = payment.amount_money;
    return {
      ...base,
      meaning: {
        kind: "payment",
        event: { kind: "succeeded", processor: "square", intentId: payment.id, amount, currency },
        orderId: orderIdOf(payment.reference_id),
      },
    };
  };
}
