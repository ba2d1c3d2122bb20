import Stripe from "stripe";
import type { ProcessorEvent } from "../../domain/payment.ts";
import type { PaymentEvent } from "../../application/payments/receive-payment-event.ts";

/** Why a webhook delivery was refused: its signature is missing, wrong or older than Stripe's five-minute tolerance, or what it signed is not an event. */
export class UnverifiedEvent extends Error {
  override name = "UnverifiedEvent";
}

/**
 * A Stripe webhook delivery, verified with the SDK (its async form: Bun's crypto is async) against
 * STRIPE_WEBHOOK_SECRET, and read as what it says about a payment.
 */
export async function verifyStripeEvent(payload: Uint8Array, signature: string | null, secret: string): Promise<PaymentEvent> {
  let event: Stripe.Event;
  try {
    event = await Stripe.webhooks.constructEventAsync(Buffer.from(payload), signature ?? "", secret);
  } catch (error) {
    throw new UnverifiedEvent(error instanceof Error ? error.message : String(error));
  }
  return { provider: "stripe", eventId: event.id, type: event.type, payment: paymentOf(event) };
}

const orderIdOf = (metadata: Stripe.Metadata | null | undefined) => (typeof metadata?.orderId === "string" ? metadata.orderId : null);
const idOf = (value: string | { id: string } | null) => (typeof value === "string" ? value : (value?.id ?? null));

/** Decisions §8: the four payment events the shop acts on; null for any other. */
function paymentOf(event: Stripe.Event): (ProcessorEvent & { orderId: string | null }) | null {
  switch (event.type) {
    case "payment_intent.succeeded":
    case "payment_intent.payment_failed":
    case "payment_intent.canceled": {
      const intent = event.data.object;
      const kind = ({ "payment_intent.succeeded": "succeeded", "payment_intent.payment_failed": "failed", "payment_intent.canceled": "canceled" } as const)[event.type];
      return { kind, intentId: intent.id, orderId: orderIdOf(intent.metadata) };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const intentId = idOf(charge.payment_intent);
      if (!intentId) return null;
      return { kind: "refunded", intentId, fully: charge.refunded || charge.amount_refunded >= charge.amount, orderId: orderIdOf(charge.metadata) };
    }
    default:
      return null;
  }
}
