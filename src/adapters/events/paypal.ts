import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import type { Clock } from "../../application/ports/system.ts";
import type { PayPalSignatureCheck, PayPalTransmission } from "./paypal-api.ts";
import { PROVIDER_ID, currencyCode, eventType, invalidSignature, malformed, orderIdOf, readJson, readPart } from "./read.ts";

/** How old (or how far ahead) a delivery's transmission time may be, as Stripe's and Svix's tolerance. */
const TOLERANCE_MS = 5 * 60_000;
/** The one algorithm PayPal signs webhooks with. */
const AUTH_ALGO = "SHA256withRSA";

const eventShape = z.object({ id: z.string().regex(PROVIDER_ID), event_type: eventType, resource: z.unknown().optional() });
const captureShape = z.object({
  id: z.string().regex(PROVIDER_ID),
  custom_id: z.string().max(255).nullish(),
  amount: z.object({ value: z.string().max(32), currency_code: currencyCode }),
});
/** A refund names its order if it can; it is recorded whatever the rest of it says. */
const refundShape = z.object({ custom_id: z.string().max(255) });

/** PayPal's certificates live on its own hosts: a delivery pointing elsewhere is refused before any call. */
function onPayPal(certUrl: string): boolean {
  const url = URL.parse(certUrl);
  return url?.protocol === "https:" && (url.hostname === "paypal.com" || url.hostname.endsWith(".paypal.com"));
}

/**
 * "20.79" → 2079. Up to 13 whole digits: more than any order costs (such an amount is flagged as not
 * the total), still exact in a number; anything that is not a plain amount is malformed.
 */
function cents(value: string): number {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw malformed(`an amount: ${value}`);
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** The transmission headers, present, with PayPal's algorithm, a cert URL on paypal.com and a time within five minutes. */
function transmissionOf(headers: Headers, now: number): PayPalTransmission {
  const transmission: PayPalTransmission = {
    transmissionId: headers.get("paypal-transmission-id") ?? "",
    transmissionTime: headers.get("paypal-transmission-time") ?? "",
    transmissionSig: headers.get("paypal-transmission-sig") ?? "",
    certUrl: headers.get("paypal-cert-url") ?? "",
    authAlgo: headers.get("paypal-auth-algo") ?? "",
  };
  if (Object.values(transmission).some((value) => value === "")) throw invalidSignature();
  if (transmission.authAlgo !== AUTH_ALGO || !onPayPal(transmission.certUrl)) throw invalidSignature();
  const sentAt = Date.parse(transmission.transmissionTime);
  if (!Number.isFinite(sentAt) || Math.abs(now - sentAt) > TOLERANCE_MS) throw invalidSignature();
  return transmission;
}

/**
 * PayPal (decisions §11): the five paypal-* transmission headers, checked here first (PayPal's
 * algorithm, its cert host, a fresh time) and then by PayPal's own API (behind PayPalSignatureCheck)
 * with the body as it came. A completed capture pays the order named by `custom_id`, as a Stripe
 * success does; a refunded one is recorded; other events are not acted on, so only their id and type
 * are read.
 */
export function paypalWebhookVerifier(check: PayPalSignatureCheck | null, clock: Clock): WebhookVerifier | null {
  if (!check) return null;
  return async (payload, headers) => {
    const transmission = transmissionOf(headers, clock.now().getTime());
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(payload);
      JSON.parse(text);
    } catch {
      // Not JSON: nothing PayPal signed, and nothing to ask it about.
      throw invalidSignature();
    }
    if (!(await check.verify(transmission, text))) throw invalidSignature();
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
      return { ...base, effect: { kind: "payment", event: paid, orderId: orderIdOf(capture.custom_id) } };
    }
    if (event.event_type === "PAYMENT.CAPTURE.REFUNDED") {
      const refund = refundShape.safeParse(event.resource);
      return { ...base, effect: { kind: "record", orderId: refund.success ? orderIdOf(refund.data.custom_id) : null } };
    }
    return { ...base, effect: null };
  };
}
