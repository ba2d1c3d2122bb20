import Stripe from "stripe";
import { DomainError, messageOf } from "../../domain/errors.ts";
import { INTENT_STATUSES, type IntentStatus } from "../../domain/payment.ts";
import { alreadyRefunded } from "../../domain/refund.ts";
import type { PaymentGateway, PaymentIntent, TaxCalculator } from "../../application/ports/payments.ts";
import type { Logger } from "../../application/ports/system.ts";

export interface StripeSettings {
  secretKey: string;
  /** Another host for the SDK to call (a test server); Stripe's own when null. */
  apiBase: string | null;
  /** How long one try waits for an answer (STRIPE_TIMEOUT_SECONDS; 20 s unless given). */
  timeoutMs?: number;
}

/** The SDK retries a connection error (a timeout too), a 409 or a 5xx with the same idempotency key: twice, then the call fails. */
const NETWORK_RETRIES = 2;
const TIMEOUT_MS = 20_000;

export function createStripeClient({ secretKey, apiBase, timeoutMs = TIMEOUT_MS }: StripeSettings): Stripe {
  const base = apiBase ? new URL(apiBase) : null;
  return new Stripe(secretKey, {
    maxNetworkRetries: NETWORK_RETRIES,
    timeout: timeoutMs,
    appInfo: { name: "storefront" },
    ...(base
      ? { host: base.hostname, port: base.port || (base.protocol === "https:" ? 443 : 80), protocol: base.protocol === "https:" ? "https" : "http" }
      : {}),
  });
}

function toIntent(pi: Stripe.PaymentIntent): PaymentIntent {
  const error = pi.last_payment_error;
  // requires_capture would need manual capture, which the shop never asks for.
  if (!(INTENT_STATUSES as readonly string[]).includes(pi.status)) throw new Error(`payment intent ${pi.id} is ${pi.status}, which the shop does not handle`);
  return {
    id: pi.id,
    status: pi.status as IntentStatus,
    clientSecret: pi.client_secret ?? "",
    amount: pi.amount,
    currency: pi.currency,
    metadata: { ...pi.metadata },
    lastError: error ? { code: error.code ?? "payment_failed", declineCode: error.decline_code ?? null, message: error.message ?? "" } : null,
    redirectUrl: pi.status === "requires_action" ? (pi.next_action?.redirect_to_url?.url ?? null) : null,
    paymentMethodId: typeof pi.payment_method === "string" ? pi.payment_method : (pi.payment_method?.id ?? null),
  };
}

/** The intent a Stripe error carries (a decline, or an intent past the step asked for), if it carries one. */
function intentOf(error: unknown): Stripe.PaymentIntent | null {
  if (!(error instanceof Stripe.errors.StripeError) || !error.payment_intent) return null;
  return error.type === "StripeCardError" || error.code === "payment_intent_unexpected_state" ? error.payment_intent : null;
}

/** The customer's payment method is unknown or unusable (Stripe names the parameter): the caller's mistake, a 400. */
function refusedMethod(error: unknown, paymentMethodId: string): DomainError | null {
  if (!(error instanceof Stripe.errors.StripeInvalidRequestError) || error.param !== "payment_method") return null;
  if (error.code === "resource_missing") return new DomainError("payment.invalid_method", `No such payment method: '${paymentMethodId}'`, { paymentMethodId });
  return new DomainError("payment.invalid_method", "This payment method cannot be used", { paymentMethodId, reason: error.message });
}

/** Stripe answered that it will not make this intent, and would answer the same again (its parameters, or its key used for others). */
function refusedIntent(error: unknown): DomainError | null {
  if (!(error instanceof Stripe.errors.StripeInvalidRequestError) && !(error instanceof Stripe.errors.StripeIdempotencyError)) return null;
  return new DomainError("payment.intent_refused", "Payment processing failed", { operation: "createIntent", code: error.code ?? error.type });
}

/**
 * A refund Stripe made but that returns no money: failed (a card closed since, say), cancelled, or
 * waiting for someone to act. Not made, so the refund stays due with Stripe's reason, for staff.
 */
function refundNotMade(refund: Stripe.Refund): DomainError {
  const why = refund.failure_reason ? `, ${refund.failure_reason}` : "";
  return new DomainError("payment.processor_failed", "Payment processing failed", {
    operation: "refund",
    outcomeUnknown: false,
    reason: `Stripe's refund ${refund.id} is ${refund.status}${why}`,
  });
}

/**
 * Whether Stripe may have done what it was asked though the call failed: no answer came (a timeout,
 * the connection lost), it failed on its side (5xx), or a try with the same key was still running
 * (409). Only an answer that refused the request (4xx: its parameters, the key, the rate) says that
 * nothing was done.
 */
function mayHaveRun(error: unknown): boolean {
  if (!(error instanceof Stripe.errors.StripeError)) return true;
  return error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError;
}

/**
 * Payments and tax through Stripe (the official SDK): payment intents in cents, USD, whose payment
 * methods never redirect (so confirming on the server needs no return URL, and 3-D Secure comes
 * back as requires_action for Stripe.js to finish), every creating call with its idempotency key.
 * A decline and an intent past the step asked for come back as the intent, as the PaymentGateway
 * port says; an unknown or unusable payment method is the caller's mistake (400); anything else
 * (after the SDK's retries) is "Payment processing failed", saying whether Stripe may have done it
 * all the same (`outcomeUnknown`).
 */
export function createStripeGateway(stripe: Stripe, logger: Logger): PaymentGateway & TaxCalculator {
  async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      logger.error("stripe.failed", {
        operation,
        error: messageOf(error),
        type: (error as { type?: string }).type,
        requestId: (error as { requestId?: string }).requestId,
      });
      throw new DomainError("payment.processor_failed", "Payment processing failed", { operation, outcomeUnknown: mayHaveRun(error) }, { cause: error });
    }
  }

  /** Confirm and cancel answer an intent Stripe refused to move with the intent as it is. */
  async function orIntentAsItIs(operation: string, run: () => Promise<Stripe.PaymentIntent>): Promise<PaymentIntent> {
    return call(operation, async () => {
      try {
        return toIntent(await run());
      } catch (error) {
        const intent = intentOf(error);
        if (intent) return toIntent(intent);
        throw error;
      }
    });
  }

  return {
    createIntent: ({ amount, currency, metadata, idempotencyKey }) =>
      call("createIntent", async () =>
        toIntent(
          await stripe.paymentIntents
            .create({ amount, currency, metadata, automatic_payment_methods: { enabled: true, allow_redirects: "never" } }, { idempotencyKey })
            .catch((error: unknown) => {
              const refused = refusedIntent(error);
              if (refused) logger.error("stripe.intent_refused", { idempotencyKey, error: messageOf(error), code: refused.details?.code });
              throw refused ?? error;
            }),
        ),
      ),

    confirmIntent: (intentId, paymentMethodId, idempotencyKey) =>
      orIntentAsItIs("confirmIntent", () =>
        stripe.paymentIntents.confirm(intentId, { payment_method: paymentMethodId }, { idempotencyKey }).catch((error: unknown) => {
          throw refusedMethod(error, paymentMethodId) ?? error;
        }),
      ),

    cancelIntent: (intentId) => orIntentAsItIs("cancelIntent", () => stripe.paymentIntents.cancel(intentId)),

    retrieveIntent: (intentId) => call("retrieveIntent", async () => toIntent(await stripe.paymentIntents.retrieve(intentId))),

    refund: ({ intentId, amount, idempotencyKey }) =>
      call("refund", async () => {
        const refund = await stripe.refunds
          .create({ payment_intent: intentId, ...(amount === undefined ? {} : { amount }) }, { idempotencyKey })
          .catch((error: unknown) => {
            if (error instanceof Stripe.errors.StripeError && error.code === "charge_already_refunded") throw alreadyRefunded(intentId, error);
            throw error;
          });
        if (refund.status === "succeeded" || refund.status === "pending") return { id: refund.id, intentId, amount: refund.amount, status: refund.status };
        throw refundNotMade(refund);
      }),

    calculate: ({ lines, shippingAddress, currency }) =>
      call("calculateTax", async () => {
        const calculation = await stripe.tax.calculations.create({
          currency,
          line_items: lines.map((line) => ({ amount: line.amount, quantity: line.quantity, reference: line.reference, tax_behavior: "exclusive" })),
          customer_details: {
            address: {
              line1: shippingAddress.address1,
              line2: shippingAddress.address2 ?? undefined,
              city: shippingAddress.city,
              state: shippingAddress.state,
              postal_code: shippingAddress.postalCode,
              country: shippingAddress.country,
            },
            address_source: "shipping",
          },
        });
        return { tax: calculation.tax_amount_exclusive, calculationId: calculation.id };
      }),
  };
}
