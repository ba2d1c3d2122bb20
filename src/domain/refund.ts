import { DomainError } from "./errors.ts";
import type { Cents } from "./money.ts";
import { PAYMENT_ATTEMPT_ABANDONED_MS } from "./payment.ts";

/**
 * A refund asked of a payment the processor holds refunded in full already (from its dashboard,
 * say): the money is back, and the refund due is settled as made (askForRefund). Asked again, such a
 * refusal would never end (found by an attack).
 */
export const alreadyRefunded = (intentId: string, cause?: unknown) =>
  new DomainError("payment.already_refunded", "The payment is refunded in full already", { intentId }, cause === undefined ? undefined : { cause });

/** Why the shop owes a refund: staff ended a paid order, or money arrived that its order does not need. */
export type RefundReason = "order_ended" | "late_payment";

/**
 * A refund the shop owes (decisions §14): marked due in the transaction of the change that owes it,
 * asked of the processor with no connection held, under its own idempotency key, and confirmed in a
 * transaction of its own once the processor answers. Until then it is due, and asked again.
 */
export interface RefundRecord {
  id: string;
  orderId: string;
  /** The processor's payment it gives back (the whole of it). */
  intentId: string;
  /** The same for every attempt, so the processor refunds once however often it is asked. */
  idempotencyKey: string;
  reason: RefundReason;
  amount: Cents;
  requestedAt: Date;
  attempts: number;
  /** When it may next be asked: after the attempt in flight has had its time, or when a failed one is due again. */
  nextAttemptAt: Date;
  /** Why the last attempt failed; null until one has. */
  lastError: string | null;
  confirmedAt: Date | null;
  /** The processor's id of the refund, as it answered; null when the payment was reported refunded another way (its webhook). */
  processorRefundId: string | null;
}

/** The keys of refunds asked before they were recorded, kept as they were: such a refund asked again is replayed, not repeated. */
export const orderRefundKey = (orderId: string) => `refund-${orderId}`;
export const latePaymentRefundKey = (intentId: string) => `late-payment-${intentId}`;

/** How long an attempt may wait on the processor before another may be made: longer than the processor adapter's own worst case. */
export const REFUND_ATTEMPT_LEASE_MS = PAYMENT_ATTEMPT_ABANDONED_MS;

/** After a failed attempt, the next is made by the first housekeeping run this long after it. */
export const REFUND_RETRY_MS = 60_000;
