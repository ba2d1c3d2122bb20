import type Stripe from "stripe";
import { z } from "zod";
import { SHOP_PROCESSOR } from "../../domain/payment.ts";
import type { WebhookEvent, WebhookMeaning, WebhookVerifier } from "../../application/events/webhook-event.ts";
import type { Clock } from "../../application/ports/system.ts";
import { PROVIDER_ID, currencyCode, eventType, invalidSignature, malformed, orderIdOf, readPart } from "./read.ts";

/** Stripe's own tolerance for a signature's age, and ours for one from the future (a clock ahead, or a forged time). */
const TOLERANCE_SECONDS = 300;

// What the shop reads of an event, checked before anything is looked up or written: ids and its type as
// PostgreSQL can store them, amounts as whole cents, currencies as codes, flags as booleans.
const id = z.string().regex(PROVIDER_ID);
const metadata = z.record(z.string(), z.string()).nullish();
const eventShape = z.object({ id, type: eventType, data: z.unknown().optional() });
/** The object an event is about, read only of the events the shop acts on. */
const dataShape = z.object({ object: z.unknown() });
const intentShape = z.object({ id, amount_received: z.number().int().min(0), currency: currencyCode, metadata });
const chargeShape = z.object({
  payment_intent: z.union([id, z.object({ id }), z.null()]),
  amount: z.number().int().min(0),
  amount_refunded: z.number().int().min(0),
  refunded: z.boolean(),
  metadata,
});
const refundShape = z.object({
  id,
  amount: z.number().int().min(0),
  payment_intent: z.union([id, z.object({ id }), z.null()]),
  failure_reason: z
    .string()
    .max(200)
    .regex(/^[^\u0000-\u001f\u007f]*$/)
    .nullish(),
});

/** The SDK, loaded on the first delivery: a shop without Stripe's webhooks does not carry it. */
const stripeSdk = () => require("stripe") as typeof Stripe;

/**
 * A Stripe webhook delivery, verified with the SDK (its async form: Bun's crypto is async) against
 * the endpoint's signing secret, its time within five minutes either way, and read as what it says
 * about a payment. Refused before anything is read when the signature does not hold; a signed
 * event whose parts the shop reads are not as Stripe sends them is malformed.
 */
async function verifyStripeEvent(payload: Uint8Array, signature: string | null, secret: string, clock: Clock): Promise<WebhookEvent> {
  const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature ?? "")?.[1]);
  const now = clock.now().getTime();
  if (!Number.isFinite(signedAt) || signedAt > now / 1000 + TOLERANCE_SECONDS) throw invalidSignature();
  let raw: unknown;
  try {
    raw = await stripeSdk().webhooks.constructEventAsync(Buffer.from(payload), signature ?? "", secret, TOLERANCE_SECONDS, undefined, now);
  } catch (error) {
    if (error instanceof stripeSdk().errors.StripeSignatureVerificationError) throw invalidSignature();
    throw malformed("the signed body is not JSON");
  }
  const event = eventShape.safeParse(raw);
  if (!event.success) throw malformed(event.error.issues[0]?.message ?? "not an event");
  return { provider: "stripe", eventId: event.data.id, type: event.data.type, meaning: meaningOf(event.data.type, event.data.data) };
}

/** The Stripe webhook's verifier for a signing secret; null (the webhook answers 503) without one. */
export function stripeWebhookVerifier(secret: string | null, clock: Clock): WebhookVerifier | null {
  return secret ? (payload, headers) => verifyStripeEvent(payload, headers.get("stripe-signature"), secret, clock) : null;
}

const KINDS = { "payment_intent.succeeded": "succeeded", "payment_intent.payment_failed": "failed", "payment_intent.canceled": "canceled" } as const;

const intentOf = (paymentIntent: string | { id: string } | null) => (typeof paymentIntent === "string" ? paymentIntent : (paymentIntent?.id ?? null));

/**
 * Decisions §8: the four payment events the shop acts on, and a refund that failed after it was
 * made (`refund.failed`), which is recorded for staff; null for any other.
 */
function meaningOf(type: string, data: unknown): WebhookMeaning | null {
  const intentEvent = Object.hasOwn(KINDS, type);
  if (!intentEvent && type !== "charge.refunded" && type !== "refund.failed") return null;
  const { object } = readPart(data, dataShape, "a Stripe event");
  if (type === "refund.failed") {
    const refund = refundShape.safeParse(object);
    if (!refund.success) throw malformed(`a refund: ${refund.error.issues[0]?.message}`);
    // One of a charge made without an intent is of no order of the shop's: recorded and flagged all the same.
    const intentId = intentOf(refund.data.payment_intent);
    return { kind: "refund-failed", intentId, refundId: refund.data.id, amount: refund.data.amount, reason: refund.data.failure_reason ?? null };
  }
  if (intentEvent) {
    const intent = intentShape.safeParse(object);
    if (!intent.success) throw malformed(`a payment intent: ${intent.error.issues[0]?.message}`);
    const { id: intentId, amount_received, currency, metadata: meta } = intent.data;
    const kind = KINDS[type as keyof typeof KINDS];
    const event = kind === "succeeded" ? { kind, processor: SHOP_PROCESSOR, intentId, amount: amount_received, currency } : { kind, intentId };
    return { kind: "payment", event, orderId: orderIdOf(meta?.orderId) };
  }
  const charge = chargeShape.safeParse(object);
  if (!charge.success) throw malformed(`a charge: ${charge.error.issues[0]?.message}`);
  const { payment_intent, amount, amount_refunded, refunded, metadata: meta } = charge.data;
  const intentId = intentOf(payment_intent);
  if (!intentId) return null;
  return { kind: "payment", event: { kind: "refunded", intentId, fully: refunded || amount_refunded >= amount }, orderId: orderIdOf(meta?.orderId) };
}
