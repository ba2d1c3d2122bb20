import type { PaymentGateway, PaymentIntent, Refund, TaxCalculator } from "../../application/ports/payments.ts";
import type { Cents } from "../../domain/money.ts";
import { DomainError } from "../../domain/errors.ts";
import { MAX_ORDER_TOTAL } from "../../domain/order.ts";
import type { IntentStatus } from "../../domain/payment.ts";
import { alreadyRefunded } from "../../domain/refund.ts";
import { STATE_TAX_RATES } from "./state-tax-rates.ts";

type Outcome = { name: string; status: IntentStatus; decline?: { code: string; declineCode: string; message: string } };

/** Stripe's test payment methods (decisions §4), by name, and what confirming with each does. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, Outcome>> = {
  pm_card_visa: { name: "Visa", status: "succeeded" },
  pm_card_mastercard: { name: "Mastercard", status: "succeeded" },
  pm_card_chargeDeclined: {
    name: "Declined card",
    status: "requires_payment_method",
    decline: { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    name: "Declined card (insufficient funds)",
    status: "requires_payment_method",
    decline: { code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds." },
  },
  pm_card_threeDSecure2Required: { name: "Card that asks for 3-D Secure", status: "requires_action" },
};

/** Where the shop serves the fake's 3-D Secure challenge page for an intent (GET), and takes its answer (POST …/authorize, …/fail). */
export const challengePageAt =
  (publicUrl: string) =>
  (intentId: string): string =>
    `${publicUrl}/api/fake-processor/challenge/${intentId}`;

/** An event of the fake's to deliver to the shop, as Stripe's webhook: its id, and the intent as it was then. */
export interface FakeEvent {
  id: string;
  intent: PaymentIntent;
}

/** One transaction over the fake's books: the intents it touches are locked until it ends. */
export interface FakeBook {
  intent(id: string): Promise<PaymentIntent | null>;
  saveIntent(intent: PaymentIntent): Promise<void>;
  refundedOf(intentId: string): Promise<Cents>;
  saveRefund(refund: Refund): Promise<void>;
  /** An event to deliver, kept with the change it tells of (in `run` only: no work under a key makes one). */
  saveEvent(event: FakeEvent): Promise<void>;
}

/**
 * Where the fake keeps what it knows: the shop's database (every instance and restart sees the same
 * intents, as with Stripe), or memory for unit tests.
 */
export interface FakeLedger {
  /** `work` in one transaction. */
  run<T>(work: (book: FakeBook) => Promise<T>): Promise<T>;
  /**
   * `work` once per idempotency key: a repeat, from any instance, gets the first answer; of runs of
   * one key at once, one is kept and the others answer with its answer, having changed nothing. A
   * run that throws keeps nothing, so a retry runs again.
   */
  once<T>(key: string, work: (book: FakeBook) => Promise<T>): Promise<T>;
  /**
   * Events not yet delivered, kept at least `waitedMs` ago and due (one whose delivery failed is due
   * again later: see `deliveryFailed`), the longest due first, up to `limit`.
   */
  undelivered(waitedMs: number, limit: number): Promise<FakeEvent[]>;
  /** The event has reached the shop: it is not delivered again. */
  delivered(eventId: string): Promise<void>;
  /** Its delivery failed: due again after a wait that doubles with each failure (1 minute, 2, 4, … up to an hour). */
  deliveryFailed(eventId: string): Promise<void>;
}

/** A book's saveEvent under an idempotency key (`once`): no work under a key makes an event (only a 3-D Secure answer does, in `run`). */
export const noEventUnderAKey = (): Promise<never> =>
  Promise.reject(new Error("the fake processor keeps an event only in a run, not under an idempotency key"));

/** How long an event whose delivery failed `failures` times waits before it is due again: as Stripe backs off. */
export const redeliveryWaitMs = (failures: number) => Math.min(60_000 * 2 ** Math.max(0, failures - 1), 3_600_000);

export type FakeProcessor = PaymentGateway &
  TaxCalculator & {
    /**
     * What the customer's bank does after 3-D Secure: the intent succeeds, or needs another method;
     * with the id of the processor's event saying so, a new one each time, as Stripe's (a second
     * challenge of one intent failed is a second event). Throws NoChallenge when the intent waits on
     * none: answered meanwhile, or cancelled.
     */
    completeAction(intentId: string, approved: boolean): Promise<{ intent: PaymentIntent; eventId: string }>;
    /**
     * Its events the shop has not taken yet, kept at least `waitedMs` ago: as Stripe delivers a
     * webhook again until the shop answers it, so that a crash (or a failure) between the intent's
     * change and the shop's taking of it loses no payment. Up to 100 at a time, the longest due
     * first; one that keeps failing waits longer each time, so it holds up none of the others.
     */
    undeliveredEvents(waitedMs: number): Promise<Array<{ intent: PaymentIntent; eventId: string }>>;
    /** The shop has taken the event: it is not delivered again. */
    eventDelivered(eventId: string): Promise<void>;
    /** The shop could not take the event: it is delivered again later, each time later (a minute, doubling, up to an hour). */
    eventFailed(eventId: string): Promise<void>;
  };

/** The intent waits on no 3-D Secure challenge (answered already, or cancelled): what it is now. */
export class NoChallenge extends Error {
  constructor(readonly intent: PaymentIntent) {
    super(`payment intent ${intent.id} is ${intent.status}: no challenge to answer`);
  }
}

const failed = (reason: string) => new DomainError("payment.processor_failed", "Payment processing failed", { reason });

/** No intent of that id in the fake's books: a refusal as Stripe's `resource_missing` is, which its challenge page tells from an outage. */
export class NoSuchIntent extends DomainError {
  constructor(id: string) {
    super("payment.processor_failed", "Payment processing failed", { reason: `no such payment intent: ${id}` });
  }
}
const unexpectedState = (intent: PaymentIntent, action: string) => failed(`cannot ${action} a payment intent that is ${intent.status}`);
const settled = (status: IntentStatus) => status === "succeeded" || status === "canceled" || status === "processing";

async function known(book: FakeBook, id: string): Promise<PaymentIntent> {
  const intent = await book.intent(id);
  if (!intent) throw new NoSuchIntent(id);
  return intent;
}

/**
 * The embedded default: a stand-in for Stripe (payment intents, refunds, tax calculations) that
 * answers as Stripe does for its test payment methods, replays a repeated idempotency key, and taxes
 * US addresses at the state rates of state-tax-rates.ts. Nothing leaves the shop: its books are kept
 * by `ledger`. An intent that needs 3-D Secure names the challenge page the shop serves for the fake
 * (`challengePage`, given the intent's id), where the customer plays the bank.
 */
export function createFakeProcessor(randomToken: () => string, ledger: FakeLedger, challengePage: (intentId: string) => string): FakeProcessor {
  // Where the challenge is answered is the shop's address, not the processor's record: named as each intent is handed out.
  const present = (intent: PaymentIntent): PaymentIntent => ({ ...intent, redirectUrl: intent.status === "requires_action" ? challengePage(intent.id) : null });
  const fake: FakeProcessor = {
    createIntent({ amount, currency, metadata, idempotencyKey }) {
      return ledger.once(`create:${idempotencyKey}`, async (book) => {
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
          redirectUrl: null,
          paymentMethodId: null,
        };
        await book.saveIntent(intent);
        return intent;
      });
    },

    confirmIntent(intentId, paymentMethodId, idempotencyKey) {
      return ledger.once(`confirm:${idempotencyKey}`, async (book) => {
        const intent = await known(book, intentId);
        // As Stripe's adapter reports its "unexpected state" error: an intent past confirming is answered as it is.
        if (settled(intent.status)) return intent;
        // Its own names only: "__proto__" or "toString" is no payment method.
        const outcome = Object.hasOwn(TEST_PAYMENT_METHODS, paymentMethodId) ? TEST_PAYMENT_METHODS[paymentMethodId] : undefined;
        if (!outcome) throw new DomainError("payment.invalid_method", `No such payment method: '${paymentMethodId}'`, { paymentMethodId });
        // As Stripe: a declined method is not kept on the intent (it waits for another).
        const confirmed = {
          ...intent,
          status: outcome.status,
          lastError: outcome.decline ?? null,
          paymentMethodId: outcome.status === "requires_payment_method" ? null : paymentMethodId,
        };
        await book.saveIntent(confirmed);
        return confirmed;
      });
    },

    cancelIntent(intentId) {
      return ledger.run(async (book) => {
        const intent = await known(book, intentId);
        if (settled(intent.status)) return intent;
        const canceled = { ...intent, status: "canceled" as const };
        await book.saveIntent(canceled);
        return canceled;
      });
    },

    retrieveIntent(intentId) {
      return ledger.run((book) => known(book, intentId));
    },

    refund({ intentId, amount, idempotencyKey }) {
      return ledger.once(`refund:${idempotencyKey}`, async (book) => {
        const intent = await known(book, intentId);
        if (intent.status !== "succeeded") throw unexpectedState(intent, "refund");
        const left = intent.amount - (await book.refundedOf(intentId));
        if (left <= 0) throw alreadyRefunded(intentId);
        const value = amount ?? left;
        if (value <= 0 || value > left) throw failed(`refund of ${value} exceeds the ${left} left`);
        const refund: Refund = { id: `re_${randomToken()}`, intentId, amount: value, status: "succeeded" };
        await book.saveRefund(refund);
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
      return ledger.run(async (book) => {
        const intent = await known(book, intentId);
        if (intent.status !== "requires_action") throw new NoChallenge(intent);
        const completed: PaymentIntent = approved
          ? { ...intent, status: "succeeded", lastError: null }
          : {
              ...intent,
              status: "requires_payment_method",
              lastError: { code: "payment_intent_authentication_failure", declineCode: null, message: "The customer did not authenticate." },
              paymentMethodId: null,
            };
        await book.saveIntent(completed);
        const eventId = `evt_${randomToken()}`;
        await book.saveEvent({ id: eventId, intent: completed });
        return { intent: completed, eventId };
      });
    },

    async undeliveredEvents(waitedMs) {
      return (await ledger.undelivered(waitedMs, 100)).map((event) => ({ intent: event.intent, eventId: event.id }));
    },

    eventDelivered: (eventId) => ledger.delivered(eventId),
    eventFailed: (eventId) => ledger.deliveryFailed(eventId),
  };
  const presented = (intent: Promise<PaymentIntent>) => intent.then(present);
  return {
    ...fake,
    createIntent: (input) => presented(fake.createIntent(input)),
    confirmIntent: (...args) => presented(fake.confirmIntent(...args)),
    cancelIntent: (intentId) => presented(fake.cancelIntent(intentId)),
    retrieveIntent: (intentId) => presented(fake.retrieveIntent(intentId)),
    completeAction: async (...args) => {
      const { intent, eventId } = await fake.completeAction(...args);
      return { intent: present(intent), eventId };
    },
    undeliveredEvents: async (waitedMs) => (await fake.undeliveredEvents(waitedMs)).map(({ intent, eventId }) => ({ intent: present(intent), eventId })),
  };
}
