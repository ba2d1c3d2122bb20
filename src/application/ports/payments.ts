import type { Address } from "../../domain/address.ts";
import type { Cents } from "../../domain/money.ts";
import type { Decline, IntentStatus } from "../../domain/payment.ts";

export interface PaymentIntent {
  id: string;
  status: IntentStatus;
  clientSecret: string;
  amount: Cents;
  currency: string;
  metadata: Record<string, string>;
  /** Why the last attempt failed, when it was declined. */
  lastError: (Decline & { message: string }) | null;
  /**
   * Where the customer finishes what the bank asks (3-D Secure), when the processor names a page for
   * it: the fake processor's challenge page; Stripe's redirect, which the shop's methods never take
   * (Stripe.js finishes those from the client secret). Null otherwise.
   */
  redirectUrl: string | null;
  /** The payment method it was last confirmed with, when the processor says (Stripe's `payment_method`). */
  paymentMethodId: string | null;
}

export interface Refund {
  id: string;
  intentId: string;
  amount: Cents;
  /** Pending: on its way back to the customer. One that failed is not a refund made (the gateway throws). */
  status: "pending" | "succeeded";
}

/**
 * The payment processor (Stripe, or the built-in fake). Every call that creates something takes an
 * idempotency key, so a retry never charges or refunds twice. A declined card is not an error: the
 * intent comes back as `requires_payment_method` with `lastError`. A payment method the processor
 * does not know is DomainError "payment.invalid_method"; a processor that fails or cannot be
 * reached is DomainError "payment.processor_failed", with `details.outcomeUnknown` true when the
 * processor may have done what it was asked all the same (no answer came, or it failed on its side):
 * only asking it later tells. An intent the processor will not make, and
 * says so (asked again, it answers the same: an amount it does not take, a key used before for
 * other parameters), is DomainError "payment.intent_refused".
 */
export interface PaymentGateway {
  createIntent(input: { amount: Cents; currency: "usd"; metadata: Record<string, string>; idempotencyKey: string }): Promise<PaymentIntent>;
  /** An intent past confirming (succeeded, canceled, processing) is answered as it is, not as an error. */
  confirmIntent(intentId: string, paymentMethodId: string, idempotencyKey: string): Promise<PaymentIntent>;
  /** An intent that can no longer be cancelled (succeeded, processing) is answered as it is. */
  cancelIntent(intentId: string): Promise<PaymentIntent>;
  retrieveIntent(intentId: string): Promise<PaymentIntent>;
  /** The whole amount when none is given. A payment refunded in full already (from the processor's dashboard, say): DomainError "payment.already_refunded". */
  refund(input: { intentId: string; amount?: Cents; idempotencyKey: string }): Promise<Refund>;
}

export interface TaxLine {
  /** Identifies the line in the processor's records (the product id). */
  reference: string;
  /** The line's amount: unit price × quantity. */
  amount: Cents;
  quantity: number;
}

/**
 * Sales tax from the processor's tax service (decisions §3): for the lines, at the shipping
 * address; shipping is not taxed. Never guessed: it throws when it cannot say (the fake names a
 * state it has no rate for; Stripe's failure is its call's), and checkout refuses the order then
 * with "tax.unavailable", whatever the error (taxFor).
 */
export interface TaxCalculator {
  calculate(input: { lines: TaxLine[]; shippingAddress: Address; currency: "usd" }): Promise<{ tax: Cents; calculationId: string | null }>;
}
