import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import type { Clock } from "../../application/ports/system.ts";
import { type PayPalWebhookSettings, payPalSignatureCheck } from "./paypal-signature.ts";
import { PROVIDER_ID, currencyCode, eventType, malformed, orderIdOf, readJson, readPart } from "./read.ts";

const eventShape = z.object({ id: z.string().regex(PROVIDER_ID), event_type: eventType, resource: z.unknown().optional() });
const captureShape = z.object({
  id: z.string().regex(PROVIDER_ID),
  custom_id: z.string().max(255).nullish(),
  amount: z.object({ value: z.string().max(32), currency_code: currencyCode }),
});
/** A refund names its order if it can; it is recorded whatever the rest of it says. */
const refundShape = z.object({ custom_id: z.string().max(255) });

/**
 * "20.79" → 2079. Up to 13 whole digits: more than any order costs (such an amount is flagged as not
 * the total), still exact in a number; anything that is not a plain amount is malformed.
 */
function cents(value: string): number {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw malformed(`an amount: ${value}`);
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/**
 * PayPal (decisions §11, §15): the delivery is checked offline, as PayPal's SDKs check it, before
 * anything is read. A completed capture pays the order named by `custom_id`, as a Stripe success
 * does; a refunded one is recorded; other events are not acted on, so only their id and type are read.
 */
export function paypalWebhookVerifier(settings: PayPalWebhookSettings | null, clock: Clock): WebhookVerifier | null {
  if (!settings) return null;
  const checkSignature = payPalSignatureCheck(settings, clock);
  return async (payload, headers) => {
    await checkSignature(payload, headers);
    const event = readJson(payload, eventShape, "a PayPal event");
    const base = { provider: "paypal", eventId: event.id, type: event.event_type };
    if (event.event_type === "PAYMENT.CAPTURE.COMPLETED") {
      const capture = readPart(event.resource, captureShape, "a PayPal capture");
      const paid = {
        kind: "succeeded" as const,
        processor: "paypal",
        intentId: capture.id,
        amount: cents(capture.amount.value),
        currency: capture.amount.currency_code,
      };
      return { ...base, meaning: { kind: "payment", event: paid, orderId: orderIdOf(capture.custom_id) } };
    }
    if (event.event_type === "PAYMENT.CAPTURE.REFUNDED") {
      const refund = refundShape.safeParse(event.resource);
      return { ...base, meaning: { kind: "record", orderId: refund.success ? orderIdOf(refund.data.custom_id) : null } };
    }
    return { ...base, meaning: null };
  };
}
