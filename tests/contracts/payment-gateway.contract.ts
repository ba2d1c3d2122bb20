import { describe, expect, test } from "bun:test";
import type { PaymentGateway, PaymentIntent, TaxCalculator } from "../../src/application/ports/payments.ts";
import { domainErrorOf } from "../support/errors.ts";

/** A payment processor under contract, and what only a test can do to it: be the customer's bank after 3-D Secure. */
export interface ProcessorTarget {
  gateway: PaymentGateway & TaxCalculator;
  completeAction(intentId: string, approved: boolean): unknown;
}

let keys = 0;
const key = (what: string) => `${what}-${Date.now()}-${++keys}`;
const austin = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };

/**
 * What the shop relies on from a payment processor (decisions §4), held to the built-in fake and
 * the Stripe adapter alike, so the two cannot drift.
 */
export function paymentGatewayContract(target: () => ProcessorTarget) {
  describe("PaymentGateway", () => {
    const gateway = () => target().gateway;
    const anIntent = (amount = 2079, metadata = { orderId: "o1", orderNumber: "SF-20261123-AB12" }) =>
      gateway().createIntent({ amount, currency: "usd", metadata, idempotencyKey: key("create") });
    const confirm = (intent: PaymentIntent, method: string) => gateway().confirmIntent(intent.id, method, key("confirm"));

    test("a new intent waits for a payment method: amount in cents, USD, the order in its metadata, a client secret", async () => {
      const intent = await anIntent(2079);
      expect(intent).toEqual({
        id: expect.stringMatching(/^pi_/),
        status: "requires_payment_method",
        clientSecret: expect.stringMatching(new RegExp(`^${intent.id}_secret_`)),
        amount: 2079,
        currency: "usd",
        metadata: { orderId: "o1", orderNumber: "SF-20261123-AB12" },
        lastError: null,
        redirectUrl: null,
        paymentMethodId: null,
      });
    });

    test("the same idempotency key gives the same intent, not a second one", async () => {
      const input = { amount: 1500, currency: "usd" as const, metadata: { orderId: "o2" }, idempotencyKey: key("create") };
      const [first, again] = [await gateway().createIntent(input), await gateway().createIntent(input)];
      expect(again.id).toBe(first.id);
    });

    test("a key's repeat is its first answer as it was then (as Stripe keeps it): where the intent stands now is retrieveIntent's", async () => {
      const input = { amount: 1500, currency: "usd" as const, metadata: { orderId: "o2" }, idempotencyKey: key("create") };
      const made = await gateway().createIntent(input);
      await gateway().confirmIntent(made.id, "pm_card_visa", key("confirm"));
      expect((await gateway().createIntent(input)).status).toBe("requires_payment_method");
      // Where it stands now: paid, with the processor's id of the method it charged (Stripe makes a
      // method of its own from a test token such as pm_card_visa; the fake keeps the token's name).
      expect(await gateway().retrieveIntent(made.id)).toMatchObject({ status: "succeeded", paymentMethodId: expect.stringMatching(/^pm_/) });
    });

    test("an intent the processor will not make (under $0.50, over $999,999.99) is refused: payment.intent_refused, however often asked", async () => {
      for (const amount of [49, 100_000_000]) {
        const input = { amount, currency: "usd" as const, metadata: { orderId: "o3" }, idempotencyKey: key("create") };
        expect((await domainErrorOf(gateway().createIntent(input))).code).toBe("payment.intent_refused");
        expect((await domainErrorOf(gateway().createIntent(input))).code).toBe("payment.intent_refused");
      }
    });

    test("pm_card_visa and pm_card_mastercard succeed", async () => {
      for (const method of ["pm_card_visa", "pm_card_mastercard"]) {
        expect(await confirm(await anIntent(), method)).toMatchObject({ status: "succeeded", lastError: null });
      }
    });

    test("a declined card leaves the intent waiting for another method, saying why; another card then pays it", async () => {
      const intent = await anIntent();
      expect(await confirm(intent, "pm_card_chargeDeclined")).toMatchObject({
        id: intent.id,
        status: "requires_payment_method",
        lastError: { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
        // As Stripe: the declined method is not kept on the intent.
        paymentMethodId: null,
      });
      expect((await confirm(intent, "pm_card_chargeDeclinedInsufficientFunds")).lastError).toEqual({
        code: "card_declined",
        declineCode: "insufficient_funds",
        message: "Your card has insufficient funds.",
      });
      expect(await confirm(intent, "pm_card_visa")).toMatchObject({ status: "succeeded", lastError: null });
    });

    test("a repeated confirmation key replays the first answer", async () => {
      const intent = await anIntent();
      const confirmation = key("confirm");
      const first = await gateway().confirmIntent(intent.id, "pm_card_chargeDeclined", confirmation);
      expect(await gateway().confirmIntent(intent.id, "pm_card_chargeDeclined", confirmation)).toEqual(first);
    });

    test("3-D Secure: requires_action until the bank answers; approved it succeeds, refused it needs another method", async () => {
      const approved = await confirm(await anIntent(), "pm_card_threeDSecure2Required");
      expect(approved.status).toBe("requires_action");
      await target().completeAction(approved.id, true);
      expect((await gateway().retrieveIntent(approved.id)).status).toBe("succeeded");

      const refused = await confirm(await anIntent(), "pm_card_threeDSecure2Required");
      await target().completeAction(refused.id, false);
      expect(await gateway().retrieveIntent(refused.id)).toMatchObject({
        status: "requires_payment_method",
        lastError: { code: "payment_intent_authentication_failure" },
      });
    });

    test("an unknown payment method is the caller's mistake: payment.invalid_method, named", async () => {
      expect(await domainErrorOf(confirm(await anIntent(), "pm_card_bogus"))).toMatchObject({
        code: "payment.invalid_method",
        message: "No such payment method: 'pm_card_bogus'",
        details: { paymentMethodId: "pm_card_bogus" },
      });
    });

    test("a name every object has (__proto__, toString, constructor) is no payment method either, and the intent stays unconfirmed", async () => {
      const intent = await anIntent();
      for (const name of ["__proto__", "toString", "constructor", "hasOwnProperty"])
        expect(await domainErrorOf(confirm(intent, name))).toMatchObject({ code: "payment.invalid_method", details: { paymentMethodId: name } });
      expect((await gateway().retrieveIntent(intent.id)).status).toBe("requires_payment_method");
      expect((await confirm(intent, "pm_card_visa")).status).toBe("succeeded");
    });

    test("an intent past confirming is answered as it is: succeeded stays succeeded, canceled stays canceled", async () => {
      const paid = await anIntent();
      await confirm(paid, "pm_card_visa");
      expect((await confirm(paid, "pm_card_chargeDeclined")).status).toBe("succeeded");
      const dropped = await anIntent();
      expect((await gateway().cancelIntent(dropped.id)).status).toBe("canceled");
      expect((await confirm(dropped, "pm_card_visa")).status).toBe("canceled");
    });

    test("cancelling: a waiting intent is canceled; a paid one is answered as it is", async () => {
      const waiting = await confirm(await anIntent(), "pm_card_threeDSecure2Required");
      expect((await gateway().cancelIntent(waiting.id)).status).toBe("canceled");
      const paid = await anIntent();
      await confirm(paid, "pm_card_visa");
      expect((await gateway().cancelIntent(paid.id)).status).toBe("succeeded");
    });

    test("refunds: the whole amount by default, once per key; nothing left is payment.already_refunded; an unpaid intent cannot be refunded", async () => {
      const paid = await anIntent(3000);
      await confirm(paid, "pm_card_visa");
      const partial = await gateway().refund({ intentId: paid.id, amount: 1000, idempotencyKey: key("refund") });
      expect(partial).toEqual({ id: expect.stringMatching(/^re_/), intentId: paid.id, amount: 1000, status: "succeeded" });
      const refundKey = key("refund");
      const rest = await gateway().refund({ intentId: paid.id, idempotencyKey: refundKey });
      expect(rest.amount).toBe(2000);
      expect(await gateway().refund({ intentId: paid.id, idempotencyKey: refundKey })).toEqual(rest);
      expect(await domainErrorOf(gateway().refund({ intentId: paid.id, idempotencyKey: key("refund") }))).toMatchObject({
        code: "payment.already_refunded",
        details: { intentId: paid.id },
      });
      expect((await domainErrorOf(gateway().refund({ intentId: (await anIntent()).id, idempotencyKey: key("refund") }))).code).toBe("payment.processor_failed");
    });
  });

  describe("TaxCalculator", () => {
    const calculate = (shippingAddress: typeof austin, amounts: number[]) =>
      target().gateway.calculate({ lines: amounts.map((amount, i) => ({ reference: `p${i}`, amount, quantity: 1 })), shippingAddress, currency: "usd" });

    test("US sales tax on each line, rounded per line, with the calculation's id", async () => {
      // Texas 6.25 %: 12.99 → 0.811875 → 0.81; 8.99 → 0.561875 → 0.56.
      expect(await calculate(austin, [1299, 899])).toEqual({ tax: 137, calculationId: expect.stringMatching(/^taxcalc_/) });
    });

    // Rates from the fake's table in docs/orders-and-payments.md; each line's tax worked out by hand and rounded half up.
    test.each([
      ["CA 7.25 %", [1000, 1299], 167, "CA"], // 72.5 → 73, 94.1775 → 94
      ["MN 6.875 %", [2000, 1299], 227, "MN"], // 137.5 → 138, 89.30625 → 89
      ["MO 4.225 %", [1299], 55, "MO"], // 54.88275 → 55
      ["PR 10.5 %", [1299, 899], 230, "PR"], // 136.395 → 136, 94.395 → 94
      ["NY 4 %", [1299, 2500], 152, "NY"], // 51.96 → 52, 100
      ["AK 0 % (placed, and taxed nothing)", [1299], 0, "AK"],
    ] as const)("%s: lines of %p cents pay %p cents", async (_, amounts, tax, state) => {
      expect((await calculate({ ...austin, state }, [...amounts])).tax).toBe(tax);
    });

    test("no US sales tax abroad", async () => {
      expect((await calculate({ ...austin, state: "ON", postalCode: "M5H 2N2", country: "CA" }, [1299])).tax).toBe(0);
    });

    test("an address it cannot place is refused, never taxed at $0", async () => {
      expect(await calculate({ ...austin, state: "ZZ" }, [1299]).catch(() => "refused")).toBe("refused");
    });
  });
}
