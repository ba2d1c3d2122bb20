import type { PaymentIntent, Refund } from "../../application/ports/payments.ts";
import { type FakeBook, type FakeEvent, type FakeLedger, noEventUnderAKey, redeliveryWaitMs } from "../payments/fake-processor.ts";
import { refuseProcessorCallInsideTransaction } from "../transaction-scope.ts";

/**
 * The fake processor's books in this process, for unit tests: runs take turns, so a run that waits
 * in the middle (as the database's do) still sees no other run's half-done work. `intents` and
 * `refunds` let a test read what the processor holds.
 */
export function createMemoryFakeLedger(
  now: () => number = Date.now,
): FakeLedger & { intents: ReadonlyMap<string, PaymentIntent>; refunds: ReadonlyMap<string, Refund> } {
  const intents = new Map<string, PaymentIntent>();
  const refunds = new Map<string, Refund>();
  const answers = new Map<string, unknown>();
  const events = new Map<string, FakeEvent & { at: number; failures: number; dueAt: number }>();
  let turn: Promise<unknown> = Promise.resolve();

  const book: FakeBook = {
    intent: async (id) => (intents.has(id) ? structuredClone(intents.get(id)!) : null),
    saveIntent: async (intent) => void intents.set(intent.id, structuredClone(intent)),
    refundedOf: async (intentId) => [...refunds.values()].filter((r) => r.intentId === intentId).reduce((sum, r) => sum + r.amount, 0),
    saveRefund: async (refund) => void refunds.set(refund.id, structuredClone(refund)),
    saveEvent: async (event) => void events.set(event.id, { ...structuredClone(event), at: now(), failures: 0, dueAt: now() }),
  };
  // As the database's: no work under an idempotency key makes an event.
  const keyedBook: FakeBook = { ...book, saveEvent: noEventUnderAKey };

  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    refuseProcessorCallInsideTransaction();
    const run = turn.then(work);
    turn = run.catch(() => {});
    return run;
  }

  return {
    intents,
    refunds,
    run: (work) => inTurn(() => work(book)),
    once: (key, work) =>
      inTurn(async () => {
        if (!answers.has(key)) answers.set(key, structuredClone(await work(keyedBook)));
        return structuredClone(answers.get(key)) as Awaited<ReturnType<typeof work>>;
      }),
    undelivered: async (waitedMs, limit) =>
      [...events.values()]
        .filter((event) => event.dueAt <= now() && now() - event.at >= waitedMs)
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, limit)
        .map(({ id, intent }) => ({ id, intent: structuredClone(intent) })),
    delivered: async (eventId) => void events.delete(eventId),
    async deliveryFailed(eventId) {
      const event = events.get(eventId);
      if (!event) return;
      event.failures++;
      event.dueAt = now() + redeliveryWaitMs(event.failures);
    },
  };
}
