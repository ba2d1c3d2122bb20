import { DomainError } from "../../domain/errors.ts";
import { MAX_ORDER_TOTAL } from "../../domain/order.ts";
import type { IntentStatus } from "../../domain/payment.ts";
import type { PaymentGateway, PaymentIntent, Refund, TaxCalculator } from "../../application/ports/payments.ts";
import { STATE_TAX_RATES } from "./state-tax-rates.ts";

type Outcome = { status: IntentStatus; decline?: { code: string; declineCode: string; message: string } };

/** Stripe's test payment methods (decisions §4) and what confirming with each does. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, Outcome>> = {
  pm_card_visa: { status: "succeeded" },
  pm_card_mastercard: { status: "succeeded" },
  pm_card_chargeDeclined: {
    status: "requires_payment_method",
    decline: { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    status: "requires_payment_method",
    decline: { code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds." },
  },
  pm_card_threeDSecure2Required: { status: "requires_action" },
};

const unexpectedState = (intent: PaymentIntent, action: string) =>
  new DomainError("payment.processor_failed", "Payment processing failed", { reason: `cannot ${action} a payment intent that is ${intent.status}` });

/**
 * The embedded default: a stateful, in-process stand-in for Stripe (payment intents, refunds,
 * tax calculations) that answers as Stripe does for its test payment methods, replays a repeated
 * idempotency key, and taxes US addresses at the state rates of state-tax-rates.ts. Nothing leaves
 * the process; nothing survives a restart. An intent it does not know (made before a restart, or by
 * another process: a server beside the CLI) counts as cancelled when it is to be paid or is asked
 * about, and as paid when it is to be refunded: the shop refunds only what its database says was
 * paid, so a paid order can still be cancelled or refunded after a restart.
 */
export function createFakeProcessor(randomToken: () => string): PaymentGateway &
  TaxCalculator & {
    /** What a customer's bank does after 3-D Secure (the test's stand-in for the customer): the intent succeeds, or needs another method. */
    completeAction(intentId: string, approved: boolean): PaymentIntent;
    intents: ReadonlyMap<string, PaymentIntent>;
    refunds: ReadonlyMap<string, Refund>;
  } {
  const intents = new Map<string, PaymentIntent>();
  const refunds = new Map<string, Refund>();
  const replays = new Map<string, unknown>();

  function once<T>(key: string, make: () => T): T {
    if (!replays.has(key)) replays.set(key, make());
    return structuredClone(replays.get(key)) as T;
  }

  function find(id: string): PaymentIntent {
    const intent = intents.get(id);
    if (!intent) throw new DomainError("payment.processor_failed", "Payment processing failed", { reason: `no such payment intent: ${id}` });
    return intent;
  }

  // An intent this process never made (before a restart, or in another process) can never be paid here: it counts as cancelled.
  const forgotten = (id: string): PaymentIntent => ({ id, status: "canceled", clientSecret: "", amount: 0, currency: "usd", metadata: {}, lastError: null });

  const refunded = (intentId: string) => [...refunds.values()].filter((r) => r.intentId === intentId).reduce((sum, r) => sum + r.amount, 0);

  return {
    intents,
    refunds,

    async createIntent({ amount, currency, metadata, idempotencyKey }) {
      return once(`create:${idempotencyKey}`, () => {
        // As Stripe: a charge in US dollars is at least $0.50 and at most $999,999.99.
        if (amount < 50 || amount > MAX_ORDER_TOTAL)
          throw new DomainError("payment.intent_refused", "Payment processing failed", { operation: "createIntent", code: "amount_out_of_range" });
        const id = `pi_${randomToken()}`;
        const intent: PaymentIntent = {
          id,
          status: "requires_payment_method",
          clientSecret: `${id}_secret_${randomToken()}`,
          amount,
          currency,
          metadata: { ...metadata },
          lastError: null,
        };
        intents.set(id, intent);
        return intent;
      });
    },

    async confirmIntent(intentId, paymentMethodId, idempotencyKey) {
      return once(`confirm:${idempotencyKey}`, () => {
        // As Stripe's adapter reports its "unexpected state" error: an intent past confirming is answered as it is.
        if (!intents.has(intentId)) return forgotten(intentId);
        const intent = find(intentId);
        if (intent.status === "succeeded" || intent.status === "canceled" || intent.status === "processing") return structuredClone(intent);
        const outcome = TEST_PAYMENT_METHODS[paymentMethodId];
        if (!outcome) throw new DomainError("payment.invalid_method", `No such payment method: '${paymentMethodId}'`, { paymentMethodId });
        intent.status = outcome.status;
        intent.lastError = outcome.decline ?? null;
        return structuredClone(intent);
      });
    },

    async cancelIntent(intentId) {
      if (!intents.has(intentId)) return forgotten(intentId);
      const intent = find(intentId);
      if (intent.status !== "succeeded" && intent.status !== "canceled" && intent.status !== "processing") intent.status = "canceled";
      return structuredClone(intent);
    },

    async retrieveIntent(intentId) {
      return intents.has(intentId) ? structuredClone(find(intentId)) : forgotten(intentId);
    },

    async refund({ intentId, amount, idempotencyKey }) {
      return once(`refund:${idempotencyKey}`, () => {
        if (!intents.has(intentId)) {
          // What it took, and so how much a whole refund is, went with the process that took it: it is
          // refunded once, and the amount is what was asked (0: unknown).
          if ([...refunds.values()].some((r) => r.intentId === intentId)) throw unexpectedState(forgotten(intentId), "refund again");
          const refund: Refund = { id: `re_${randomToken()}`, intentId, amount: amount ?? 0, status: "succeeded" };
          refunds.set(refund.id, refund);
          return refund;
        }
        const intent = find(intentId);
        if (intent.status !== "succeeded") throw unexpectedState(intent, "refund");
        const left = intent.amount - refunded(intentId);
        const value = amount ?? left;
        if (value <= 0 || value > left)
          throw new DomainError("payment.processor_failed", "Payment processing failed", { reason: `refund of ${value} exceeds the ${left} left` });
        const refund: Refund = { id: `re_${randomToken()}`, intentId, amount: value, status: "succeeded" };
        refunds.set(refund.id, refund);
        return refund;
      });
    },

    async calculate({ lines, shippingAddress }) {
      const rate = shippingAddress.country === "US" ? STATE_TAX_RATES[shippingAddress.state as keyof typeof STATE_TAX_RATES] : 0;
      if (rate === undefined) throw new DomainError("tax.unavailable", "Tax could not be calculated", { reason: `no tax rate for ${shippingAddress.state}` });
      // As Stripe Tax does: each line taxed and rounded on its own.
      const tax = lines.reduce((sum, line) => sum + Math.round((line.amount * rate) / 100_000), 0);
      return { tax, calculationId: `taxcalc_${randomToken()}` };
    },

    completeAction(intentId, approved) {
      const intent = find(intentId);
      if (intent.status !== "requires_action") throw unexpectedState(intent, "complete the action of");
      intent.status = approved ? "succeeded" : "requires_payment_method";
      intent.lastError = approved ? null : { code: "payment_intent_authentication_failure", declineCode: null, message: "The customer did not authenticate." };
      return structuredClone(intent);
    },
  };
}
