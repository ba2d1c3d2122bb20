/** How a checkout ended (decisions §14); `refused` is any other refusal (an empty cart, lines gone, too many unpaid orders, a bad address). */
export type CheckoutOutcome = "placed" | "insufficient_inventory" | "cart_changed" | "tax_failed" | "intent_failed" | "refused" | "error";

/**
 * How a payment ended: `canceled` is an intent the processor had cancelled; `refunded` is money taken
 * for an order that ended meanwhile and sent straight back; `refused` is a refusal of the shop's
 * (not the customer's order, not payable, another payment running, an unknown payment method).
 */
export type PaymentOutcome = "paid" | "requires_action" | "processing" | "declined" | "canceled" | "refunded" | "processor_failed" | "refused" | "error";

/** What became of a delivery to a webhook: the pipeline's outcome, or refused before it (`rejected`: a signature or body that does not hold). */
export type WebhookOutcome = "applied" | "unchanged" | "duplicate" | "ignored" | "not_found" | "flagged" | "rejected" | "error";

/** Which rate limit refused a request (decisions §9, §15). */
export type RateLimitName = "endpoint" | "password";

/** Why the password-check queue refused a check: it was full, or this client had one waiting already. */
export type PasswordCheckRefusal = "busy" | "client_waiting";

/**
 * What the shop counts for its operators (decisions §14), told as it happens. Each call is cheap and
 * never fails; where nobody scrapes them, the counts go nowhere.
 */
export interface ShopMetrics {
  checkout(outcome: CheckoutOutcome): void;
  payment(outcome: PaymentOutcome): void;
  webhook(provider: string, outcome: WebhookOutcome): void;
  rateLimitRefusal(limit: RateLimitName): void;
  passwordCheckRefusal(reason: PasswordCheckRefusal): void;
  housekeepingRun(outcome: "done" | "failed"): void;
}
