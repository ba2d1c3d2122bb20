import { expect, test } from "bun:test";
import { createFakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { domainErrorOf } from "../support/errors.ts";

// What only the fake has: a memory that ends with its process (Stripe's own is the contract's business).
test("an intent it does not know (made before a restart) cannot be paid, and is refunded once, as the shop asks", async () => {
  const before = createFakeProcessor(cuid2Ids.next);
  const intent = await before.createIntent({ amount: 2079, currency: "usd", metadata: {}, idempotencyKey: "create-1" });
  await before.confirmIntent(intent.id, "pm_card_visa", "confirm-1");

  const after = createFakeProcessor(cuid2Ids.next);
  expect((await after.confirmIntent(intent.id, "pm_card_visa", "confirm-2")).status).toBe("canceled");
  expect(await after.refund({ intentId: intent.id, idempotencyKey: "refund-1" })).toMatchObject({ intentId: intent.id, status: "succeeded" });
  expect(await after.refund({ intentId: intent.id, idempotencyKey: "refund-1" })).toMatchObject({ intentId: intent.id, status: "succeeded" });
  expect((await domainErrorOf(after.refund({ intentId: intent.id, idempotencyKey: "refund-2" }))).code).toBe("payment.processor_failed");
  expect(after.refunds.size).toBe(1);
});

test("asked about an intent it does not know (made before a restart), it answers it cancelled, so an attempt left then is settled, not retried for ever", async () => {
  const before = createFakeProcessor(cuid2Ids.next);
  const intent = await before.createIntent({ amount: 2079, currency: "usd", metadata: {}, idempotencyKey: "create-1" });
  const after = createFakeProcessor(cuid2Ids.next);
  expect(await after.retrieveIntent(intent.id)).toMatchObject({ id: intent.id, status: "canceled" });
});
