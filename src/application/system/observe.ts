import type { RequestOrigin } from "../../domain/audit.ts";
import { DATABASE_REFUSALS, DomainError, type ErrorCode } from "../../domain/errors.ts";
import type { EventOutcome, WebhookEvent, WebhookVerifier } from "../events/webhook-event.ts";
import type { RateLimitVerdict } from "../limits/rate-limit.ts";
import type { PlacedOrder } from "../orders/attach-payment-intent.ts";
import type { OrderRequest } from "../orders/place-order.ts";
import type { PaymentRequest, PaymentResult } from "../payments/pay-order.ts";
import type { HeldKey } from "../ports/idempotency.ts";
import type { CheckoutOutcome, PasswordCheckRefusal, PaymentOutcome, ShopMetrics } from "../ports/metrics.ts";

type Async<A extends unknown[], T> = (...args: A) => Promise<T>;

/** `fn`, telling `onValue` what each call answered, or `onError` what it threw (thrown on all the same). */
function watched<A extends unknown[], T>(fn: Async<A, T>, onValue: (value: T, args: A) => void, onError: (error: unknown, args: A) => void): Async<A, T> {
  return async (...args) => {
    let value: T;
    try {
      value = await fn(...args);
    } catch (error) {
      onError(error, args);
      throw error;
    }
    onValue(value, args);
    return value;
  };
}

const codeOf = (error: unknown): ErrorCode | null => (error instanceof DomainError ? error.code : null);

const CHECKOUT_REFUSALS: Partial<Record<ErrorCode, CheckoutOutcome>> = {
  "inventory.insufficient": "insufficient_inventory",
  "cart.changed": "cart_changed",
  "tax.unavailable": "tax_failed",
  "order.creation_failed": "intent_failed",
};

/**
 * A failure the request did not cause: an error nobody expected, or a refusal for want of the
 * database (lost, a row held past the lock limit, a statement cancelled, writes refused), which is
 * a 503, not the shop refusing.
 */
const unexpected = (code: ErrorCode | null) => code === null || DATABASE_REFUSALS.has(code);

/** What a checkout that threw came to: a refusal the shop names, another refusal, or a failure (unexpected). */
function checkoutOutcome(error: unknown): CheckoutOutcome {
  const code = codeOf(error);
  return unexpected(code) ? "error" : (CHECKOUT_REFUSALS[code!] ?? "refused");
}

/** What a payment that answered came to. */
function paymentOutcome(result: PaymentResult): PaymentOutcome {
  if (result.success) return "paid";
  switch (result.paymentIntent.status) {
    case "requires_action":
      return "requires_action";
    case "processing":
      return "processing";
    // Taken for an order that ended meanwhile: the money went straight back.
    case "succeeded":
      return "refunded";
    default:
      return "canceled";
  }
}

/** What a payment that threw came to. */
function paymentFailure(error: unknown): PaymentOutcome {
  const code = codeOf(error);
  if (code === "payment.declined") return "declined";
  if (code === "payment.processor_failed" || code === "payment.intent_refused") return "processor_failed";
  return unexpected(code) ? "error" : "refused";
}

const PASSWORD_QUEUE_REFUSALS: Partial<Record<ErrorCode, PasswordCheckRefusal>> = { "auth.busy": "busy", "auth.check_waiting": "client_waiting" };

/** The use cases whose outcomes are counted, as makeUseCases binds them. */
export interface ObservedUseCases {
  placeOrder(userId: string, request: OrderRequest, origin: RequestOrigin, key?: HeldKey | null): Promise<PlacedOrder>;
  payOrder(userId: string, request: PaymentRequest, origin: RequestOrigin): Promise<PaymentResult>;
  receiveWebhookEvent(event: WebhookEvent): Promise<EventOutcome>;
  takeRequest(client: string, endpoint: string): Promise<RateLimitVerdict>;
  takePasswordRequest(client: string): Promise<RateLimitVerdict>;
  register: Async<never[], unknown>;
  signInWithPassword: Async<never[], unknown>;
  changePassword: Async<never[], unknown>;
}

/**
 * The use cases, each telling `metrics` how it ended (decisions §14): checkouts (a replay of one
 * already made is not another), payments, webhook deliveries, rate-limit refusals and the refusals
 * of the password-check queue. The use cases themselves know nothing of it.
 */
export function observeUseCases<T extends ObservedUseCases>(useCases: T, metrics: ShopMetrics): T {
  const replayed = (key: HeldKey | null | undefined) => Boolean(key?.orderId);
  const queueRefusal = (error: unknown) => {
    const code = codeOf(error);
    const reason = code && PASSWORD_QUEUE_REFUSALS[code];
    if (reason) metrics.passwordCheckRefusal(reason);
  };
  const nothing = () => {};
  return {
    ...useCases,
    placeOrder: watched(
      useCases.placeOrder,
      (_, [, , , key]) => replayed(key) || metrics.checkout("placed"),
      (error, [, , , key]) => replayed(key) || metrics.checkout(checkoutOutcome(error)),
    ),
    payOrder: watched(
      useCases.payOrder,
      (result) => metrics.payment(paymentOutcome(result)),
      (error) => metrics.payment(paymentFailure(error)),
    ),
    receiveWebhookEvent: watched(
      useCases.receiveWebhookEvent,
      (outcome, [event]) => metrics.webhook(event.provider, outcome),
      (_, [event]) => metrics.webhook(event.provider, "error"),
    ),
    takeRequest: watched(useCases.takeRequest, (verdict) => verdict.allowed || metrics.rateLimitRefusal("endpoint"), nothing),
    takePasswordRequest: watched(useCases.takePasswordRequest, (verdict) => verdict.allowed || metrics.rateLimitRefusal("password"), nothing),
    register: watched(useCases.register, nothing, queueRefusal),
    signInWithPassword: watched(useCases.signInWithPassword, nothing, queueRefusal),
    changePassword: watched(useCases.changePassword, nothing, queueRefusal),
  };
}

/** Each provider's verifier, counting the deliveries it refuses (a signature or body that does not hold) as `rejected`. */
export function observeWebhookVerifiers<V extends Record<string, WebhookVerifier | null>>(verifiers: V, metrics: ShopMetrics): V {
  const observed = Object.entries(verifiers).map(([provider, verify]) => [
    provider,
    verify &&
      watched(
        verify,
        () => {},
        (error) => metrics.webhook(provider, codeOf(error) ? "rejected" : "error"),
      ),
  ]);
  return Object.fromEntries(observed) as V;
}
