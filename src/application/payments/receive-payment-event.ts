import { NO_ORIGIN } from "../../domain/audit.ts";
import type { ProcessorEvent } from "../../domain/payment.ts";
import type { Deps } from "../ports/index.ts";
import { applyProcessorEvent } from "./apply-processor-event.ts";

/** An event a payment processor posted, verified and read by its adapter. */
export interface PaymentEvent {
  provider: string;
  eventId: string;
  type: string;
  /** What it says about a payment, in the shop's terms; null for a type the shop does not act on. */
  payment: (ProcessorEvent & { orderId: string | null }) | null;
}

/**
 * Verifies a delivery (its raw body and headers) and reads it as a payment event; refuses one whose
 * signature does not hold (webhook.invalid_signature) or that is not an event (webhook.malformed).
 */
export type PaymentEventVerifier = (payload: Uint8Array, headers: Headers) => Promise<PaymentEvent>;

export type EventOutcome = "ignored" | "duplicate" | "order_not_found" | "applied" | "unchanged";

/**
 * A payment processor's event (decisions §8), applied once: recorded by its id in the transaction
 * that applies it, so a redelivery (or ten at once) changes nothing more, and a failure records
 * nothing, so the processor's retry is applied. The order is found by its id in the intent's
 * metadata, else by the intent, and locked: an event that arrives while a payment of the order is
 * being confirmed waits for it. Types the shop does not act on are acknowledged and dropped.
 */
export async function receivePaymentEvent(deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">, event: PaymentEvent): Promise<EventOutcome> {
  const { payment } = event;
  if (!payment) return "ignored";
  const outcome = await deps.uow.transaction(async (tx): Promise<EventOutcome> => {
    if (!(await tx.webhookEvents.record({ provider: event.provider, eventId: event.eventId, type: event.type, receivedAt: deps.clock.now() }))) return "duplicate";
    const orderId = payment.orderId ?? (await tx.orders.idOfPaymentIntent(payment.intentId));
    const order = orderId ? await tx.orders.lock(orderId) : null;
    if (!order) return "order_not_found";
    const effect = await applyProcessorEvent(tx, deps, order, payment, { action: `webhook.${event.provider}`, userId: null, origin: NO_ORIGIN, changes: { eventId: event.eventId, type: event.type } });
    return effect.ignored ? "unchanged" : "applied";
  });
  if (outcome === "order_not_found") deps.logger.warn("webhook.order_not_found", { provider: event.provider, eventId: event.eventId, type: event.type, intentId: payment.intentId });
  return outcome;
}
