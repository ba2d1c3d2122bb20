import { NO_ORIGIN, type RequestOrigin } from "../../domain/audit.ts";
import type { Cents } from "../../domain/money.ts";
import type { ProcessorEvent } from "../../domain/payment.ts";
import type { AuditFields } from "../audit.ts";
import type { Deps } from "../ports/index.ts";

/** What a provider's event says, in the shop's terms, once its adapter has verified and read it. */
export type WebhookMeaning =
  /** A payment's fate (Stripe, Square, PayPal): the order by its id, else by the payment's id. */
  | { kind: "payment"; event: ProcessorEvent; orderId: string | null }
  /** A parcel's progress (EasyPost): the order by its tracking number. */
  | { kind: "shipment"; trackingCode: string; status: string }
  /** Addresses that must not be mailed again (Resend: a bounce or a complaint). */
  | { kind: "mail-suppression"; addresses: string[]; reason: "bounced" | "complained" }
  /** A message the mail provider delivered (Resend), by the provider's id of it. */
  | { kind: "mail-delivered"; messageId: string }
  /**
   * A refund the processor had made that failed afterwards (Stripe's `refund.failed`: the card
   * closed, say), so the customer never got the money: recorded on the order, flagged, for staff.
   */
  | { kind: "refund-failed"; intentId: string | null; refundId: string; amount: Cents; reason: string | null }
  /** Acted on by being recorded only (PayPal's refund, say). */
  | { kind: "record"; orderId: string | null };

export interface WebhookEvent {
  provider: string;
  /** The provider's own id of the event: a redelivery carries the same. */
  eventId: string;
  type: string;
  /** Null: a type the shop does not act on (acknowledged, nothing recorded). */
  meaning: WebhookMeaning | null;
  /** Who delivered it (the provider's address and user agent), for its audit entry; none for an event the shop delivers itself. */
  origin?: RequestOrigin;
}

/**
 * A provider's check and reading of one delivery, from its raw body and headers: refuses it when
 * its signature does not hold (webhook.invalid_signature) or it is no event of the provider's
 * (webhook.malformed), before anything is parsed or written.
 */
export type WebhookVerifier = (payload: Uint8Array, headers: Headers) => Promise<WebhookEvent>;

export type EventOutcome = "ignored" | "duplicate" | "not_found" | "applied" | "unchanged" | "flagged";

export type EventDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/** What applying an event came to, and what may only be done once it is committed. */
export interface Applied {
  outcome: EventOutcome;
  afterCommit?: () => Promise<void>;
}

/**
 * The fields of an event's audit entry `webhook.<provider>` but the entity's: made by no user (the
 * provider), from the address that delivered it, saying which event it was and, after that, what it did.
 */
export function webhookAudit(event: WebhookEvent, changes: Record<string, unknown> = {}): Required<Omit<AuditFields, "entityType" | "entityId">> {
  return {
    action: `webhook.${event.provider}`,
    userId: null,
    origin: event.origin ?? NO_ORIGIN,
    changes: { eventId: event.eventId, type: event.type, ...changes },
  };
}
