import { expect, test } from "bun:test";
import type { WebhookEvent } from "../../src/application/events/webhook-event.ts";
import type { UseCases } from "../../src/application/use-cases.ts";
import { createMemoryFakeProcessor } from "../../src/adapters/memory/deps.ts";
import { redeliverFakeEvents } from "../../src/adapters/payments/fake-processor-events.ts";
import { redeliveryWaitMs } from "../../src/adapters/payments/fake-processor.ts";

/** The fake processor on a clock of the test's, with `count` 3-D Secure answers made and not yet delivered. */
async function answered(count: number) {
  let now = Date.parse("2026-11-27T03:00:00Z");
  const fake = createMemoryFakeProcessor(undefined, () => now);
  const orders: string[] = [];
  for (let i = 0; i < count; i++) {
    const orderId = `o${String(i).padStart(3, "0")}`;
    const intent = await fake.createIntent({ amount: 1000, currency: "usd", metadata: { orderId }, idempotencyKey: `order-${orderId}` });
    await fake.confirmIntent(intent.id, "pm_card_threeDSecure2Required", `confirm-${orderId}`);
    await fake.completeAction(intent.id, true);
    orders.push(orderId);
    now += 1;
  }
  return { fake, orders, advance: (ms: number) => (now += ms) };
}

/** A shop whose webhook pipeline fails for the orders in `failing`, and notes the ones it takes. */
function shopFailingFor(failing: Set<string>) {
  const taken: string[] = [];
  const receiveWebhookEvent = async (event: WebhookEvent) => {
    const orderId = event.meaning?.kind === "payment" ? event.meaning.orderId : null;
    if (orderId && failing.has(orderId)) throw new Error(`order ${orderId} cannot take it`);
    if (orderId) taken.push(orderId);
    return "applied" as const;
  };
  return { useCases: { receiveWebhookEvent } as unknown as UseCases, taken };
}

test("a hundred events that keep failing hold up none after them: failed, each waits longer, and the rest go through (found by a review)", async () => {
  const { fake, orders, advance } = await answered(101);
  const shop = shopFailingFor(new Set(orders.slice(0, 100)));
  // One run takes a hundred, the longest due first: all of them fail.
  const first = await redeliverFakeEvents(shop.useCases, fake, 0);
  expect([first.delivered, first.failed.length]).toEqual([0, 100]);
  // The next run finds the failed ones not due yet, and the one behind them goes through.
  expect((await redeliverFakeEvents(shop.useCases, fake, 0)).delivered).toBe(1);
  expect(shop.taken).toEqual([orders[100]!]);
  // The failed ones come back after a minute, then two, four: doubling up to an hour.
  expect([1, 2, 3, 7, 20].map(redeliveryWaitMs)).toEqual([60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  advance(60_000);
  expect((await redeliverFakeEvents(shop.useCases, fake, 0)).failed).toHaveLength(100);
  advance(60_000);
  expect(await redeliverFakeEvents(shop.useCases, fake, 0)).toEqual({ delivered: 0, failed: [] });
  advance(60_000);
  const mended = shopFailingFor(new Set());
  expect(await redeliverFakeEvents(mended.useCases, fake, 0)).toEqual({ delivered: 100, failed: [] });
  expect(await redeliverFakeEvents(mended.useCases, fake, 0)).toEqual({ delivered: 0, failed: [] });
});

test("an event is kept for the wait asked before it is delivered again: the route's own delivery goes first", async () => {
  const { fake, advance } = await answered(1);
  const shop = shopFailingFor(new Set());
  expect(await redeliverFakeEvents(shop.useCases, fake, 120_000)).toEqual({ delivered: 0, failed: [] });
  advance(120_000);
  expect(await redeliverFakeEvents(shop.useCases, fake, 120_000)).toEqual({ delivered: 1, failed: [] });
});
