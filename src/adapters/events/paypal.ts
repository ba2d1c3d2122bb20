import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import type { PayPalSignatureCheck, PayPalTransmission } from "../../application/ports/events.ts";
import { PROVIDER_ID, invalidSignature, malformed, orderIdOf, readJson } from "./read.ts";

const eventShape = z.object({
  id: z.string().regex(PROVIDER_ID),
  event_type: z.string().min(1).max(255),
  resource: z
    .object({
      id: z.string().regex(PROVIDER_ID).optional(),
      custom_id: z.string().max(255).optional(),
      amount: z.object({ value: z.string(), currency_code: z.string().max(10) }).optional(),
    })
    .passthrough()
    .optional(),
});

/** PayPal's certificates live on its own hosts: a delivery pointing elsewhere is refused before any call. */
function onPayPal(certUrl: string): boolean {
  const url = URL.parse(certUrl);
  return url?.protocol === "https:" && (url.hostname === "paypal.com" || url.hostname.endsWith(".paypal.com"));
}

/** "20.79" → 2079; anything that is not a plain amount of at most two decimals is malformed. */
function cents(value: string): number {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw malformed(`an amount: ${value}`);
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/**
 * PayPal (decisions §11): the five paypal-* transmission headers, checked by PayPal's own API
 * (behind PayPalSignatureCheck) after the cert URL is found on a paypal.com host. A completed
 * capture pays the order named by `custom_id`, as a Stripe success does; a refunded one is recorded.
 */
export function paypalWebhookVerifier(check: PayPalSignatureCheck | null): WebhookVerifier | null {
  if (!check) return null;
  return async (payload, headers) => {
    const transmission: PayPalTransmission = {
      transmissionId: headers.get("paypal-transmission-id") ?? "",
      transmissionTime: headers.get("paypal-transmission-time") ?? "",
      transmissionSig: headers.get("paypal-transmission-sig") ?? "",
      certUrl: headers.get("paypal-cert-url") ?? "",
      authAlgo: headers.get("paypal-auth-algo") ?? "",
    };
    if (Object.values(transmission).some((value) => value === "") || !onPayPal(transmission.certUrl)) throw invalidSignature();
    let webhookEvent: unknown;
    try {
      webhookEvent = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
    } catch {
      throw invalidSignature();
    }
    if (!(await check.verify(transmission, webhookEvent))) throw invalidSignature();
    const event = readJson(payload, eventShape, "a PayPal event");
    const base = { provider: "paypal", eventId: event.id, type: event.event_type };
    const resource = event.resource;
    if (event.event_type === "PAYMENT.CAPTURE.COMPLETED" && resource?.id && resource.amount) {
      const paid = { kind: "succeeded" as const, processor: "paypal", intentId: resource.id, amount: cents(resource.amount.value), currency: resource.amount.currency_code };
      return { ...base, effect: { kind: "payment", event: paid, orderId: orderIdOf(resource.custom_id) } };
    }
    if (event.event_type === "PAYMENT.CAPTURE.REFUNDED") return { ...base, effect: { kind: "record", orderId: orderIdOf(resource?.custom_id) } };
    return { ...base, effect: null };
  };
}
