import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/adapters/log.ts";
import { createStripeClient, createStripeGateway } from "../../src/adapters/payments/stripe-gateway.ts";
import { domainErrorOf } from "../support/errors.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

let server: StripeTestServer;
let gateway: ReturnType<typeof createStripeGateway>;
beforeAll(async () => {
  server = await startStripeTestServer();
  gateway = createStripeGateway(createStripeClient({ secretKey: server.secretKey, apiBase: server.url }), silentLogger);
});
afterAll(() => server.close());

const intentInput = (idempotencyKey: string) => ({
  amount: 2079,
  currency: "usd" as const,
  metadata: { orderId: "ord_1", orderNumber: "SF-20261123-AB12" },
  idempotencyKey,
});

describe("Stripe adapter (STRIPE_API_BASE pointing the SDK at the test server)", () => {
  test("sends Stripe's form encoding: the metadata arrives as Stripe reads it, the idempotency key as its header", async () => {
    const intent = await gateway.createIntent(intentInput("order-ord_1"));
    expect(server.intents.get(intent.id)).toMatchObject({
      amount: 2079,
      currency: "usd",
      metadata: { orderId: "ord_1", orderNumber: "SF-20261123-AB12" },
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    expect(server.calls.at(-1)).toMatchObject({ method: "POST", path: "/v1/payment_intents", idempotencyKey: "order-ord_1" });
  });

  test("a Stripe 5xx is retried by the SDK with the same idempotency key, and the call succeeds", async () => {
    const before = server.calls.length;
    server.failNext(2, 500);
    const intent = await gateway.createIntent(intentInput("retried-key"));
    const attempts = server.calls.slice(before);
    expect(attempts.map((c) => c.idempotencyKey)).toEqual(["retried-key", "retried-key", "retried-key"]);
    expect(server.intents.has(intent.id)).toBe(true);
  });

  test("a processor still failing after the retries is payment.processor_failed (500 Payment processing failed), which may have been done all the same", async () => {
    server.failNext(3, 503);
    expect(await domainErrorOf(gateway.createIntent(intentInput("never-made")))).toMatchObject({
      code: "payment.processor_failed",
      message: "Payment processing failed",
      details: { operation: "createIntent", outcomeUnknown: true },
    });
  });

  test("a refund of a payment refunded in full already is payment.already_refunded; any other refusal keeps Stripe's words as its cause, for staff, not for the answer (found by an attack)", async () => {
    const intent = await gateway.createIntent(intentInput("to-refund"));
    await gateway.confirmIntent(intent.id, "pm_card_visa", "confirm-to-refund");
    await gateway.refund({ intentId: intent.id, idempotencyKey: "from-the-dashboard" });
    expect(await domainErrorOf(gateway.refund({ intentId: intent.id, idempotencyKey: "the-shops" }))).toMatchObject({
      code: "payment.already_refunded",
      details: { intentId: intent.id },
    });
    const unpaid = await gateway.createIntent(intentInput("never-paid"));
    const refused = await domainErrorOf(gateway.refund({ intentId: unpaid.id, idempotencyKey: "refused" }));
    expect(refused).toMatchObject({ code: "payment.processor_failed", details: { operation: "refund", outcomeUnknown: false } });
    expect(String((refused.cause as Error).message)).toContain("does not have a successful charge to refund");
  });

  test("a refund Stripe answers failed, cancelled or waiting for an action gives no money back: payment.processor_failed naming its status and reason, for staff; a pending one is made (found by a review)", async () => {
    const paid = async (key: string) => {
      const intent = await gateway.createIntent(intentInput(`intent-${key}`));
      await gateway.confirmIntent(intent.id, "pm_card_visa", `confirm-${key}`);
      return intent.id;
    };
    for (const [status, reason] of [
      ["failed", "expired_or_canceled_card"],
      ["canceled", null],
      ["requires_action", null],
    ] as const) {
      const intentId = await paid(`refund-${status}`);
      server.refundNext(status, reason);
      const refused = await domainErrorOf(gateway.refund({ intentId, idempotencyKey: `refund-${status}` }));
      expect(refused).toMatchObject({ code: "payment.processor_failed", details: { operation: "refund", outcomeUnknown: false } });
      expect(refused.details?.reason).toMatch(new RegExp(`^Stripe's refund re_\\w+ is ${status}${reason ? `, ${reason}` : ""}$`));
    }
    const intentId = await paid("refund-pending");
    server.refundNext("pending");
    expect(await gateway.refund({ intentId, idempotencyKey: "refund-pending" })).toMatchObject({ intentId, amount: 2079, status: "pending" });
  });

  test("a processor that cannot be reached or answers too late may have done it (outcomeUnknown); one that refuses the key has not", async () => {
    const unreachable = createStripeGateway(createStripeClient({ secretKey: server.secretKey, apiBase: "http://127.0.0.1:9" }), silentLogger);
    expect(await domainErrorOf(unreachable.retrieveIntent("pi_1"))).toMatchObject({ code: "payment.processor_failed", details: { outcomeUnknown: true } });
    const impatient = createStripeGateway(createStripeClient({ secretKey: server.secretKey, apiBase: server.url, timeoutMs: 100 }), silentLogger);
    // Made, its answer held past every try (the retries told that the key is in use).
    const held = server.holdNext("/v1/payment_intents");
    try {
      expect(await domainErrorOf(impatient.createIntent(intentInput("made-too-slowly")))).toMatchObject({
        code: "payment.processor_failed",
        details: { outcomeUnknown: true },
      });
    } finally {
      held.release();
    }
    const wrongKey = createStripeGateway(createStripeClient({ secretKey: "sk_test_wrong", apiBase: server.url }), silentLogger);
    expect(await domainErrorOf(wrongKey.createIntent(intentInput("wrong-key")))).toMatchObject({
      code: "payment.processor_failed",
      details: { outcomeUnknown: false },
    });
  });
});
