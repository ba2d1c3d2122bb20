import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, sql } from "kysely";
import { createPgFakeLedger } from "../../src/adapters/db/fake-processor-ledger.ts";
import { type FakeProcessor, challengePageAt, createFakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { domainErrorOf } from "../support/errors.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

// What only the fake has: its books in the shop's database. Two fakes on one database are two
// instances of the shop (or one before and after a restart): each sees what the other did.
let database: TestDatabase;
let one: FakeProcessor;
let other: FakeProcessor;
beforeAll(async () => {
  database = await createTestDatabase();
  [one, other] = [0, 1].map(() => createFakeProcessor(cuid2Ids.next, createPgFakeLedger(database.db), challengePageAt("http://localhost:3000"))) as [
    FakeProcessor,
    FakeProcessor,
  ];
});
afterAll(() => database.drop());

const metadata = { orderId: "o1", orderNumber: "SF-20261125-AB12" };

test("an intent made on one instance is paid on the other, and its client secret is never empty", async () => {
  const intent = await one.createIntent({ amount: 2079, currency: "usd", metadata, idempotencyKey: "order-o1" });
  expect(intent.clientSecret).toMatch(new RegExp(`^${intent.id}_secret_.+`));
  expect(await other.createIntent({ amount: 2079, currency: "usd", metadata, idempotencyKey: "order-o1" })).toEqual(intent);
  expect((await other.confirmIntent(intent.id, "pm_card_visa", "confirm-o1-1")).status).toBe("succeeded");
  expect(await one.retrieveIntent(intent.id)).toEqual({ ...intent, status: "succeeded", paymentMethodId: "pm_card_visa" });
});

test("ten confirmations with one key from both instances at once confirm once, all answered alike", async () => {
  const intent = await one.createIntent({ amount: 999, currency: "usd", metadata, idempotencyKey: "order-o2" });
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? one : other).confirmIntent(intent.id, i === 0 ? "pm_card_visa" : "pm_card_chargeDeclined", "confirm-o2-1")),
  );
  expect(answers).toEqual(Array(10).fill(answers[0]));
  expect((await one.retrieveIntent(intent.id)).status).toBe(answers[0]!.status);
});

test("ten creations with one key from both instances at once make one intent, all answered with it; the others leave nothing in the books", async () => {
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? one : other).createIntent({ amount: 1234, currency: "usd", metadata, idempotencyKey: "order-o5" })),
  );
  expect(answers).toEqual(Array(10).fill(answers[0]));
  const kept = await database.db.selectFrom("fake_processor_intents").select("id").where(sql`intent->>'amount'`, "=", "1234").execute();
  expect(kept).toEqual([{ id: answers[0]!.id }]);
});

test("two refunds with one key at once refund once, both answered with it", async () => {
  const intent = await one.createIntent({ amount: 3000, currency: "usd", metadata, idempotencyKey: "order-o6" });
  await one.confirmIntent(intent.id, "pm_card_visa", "confirm-o6-1");
  const [first, again] = await Promise.all([
    one.refund({ intentId: intent.id, amount: 1000, idempotencyKey: "refund-o6" }),
    other.refund({ intentId: intent.id, amount: 1000, idempotencyKey: "refund-o6" }),
  ]);
  expect(again).toEqual(first);
  const made = await database.db.selectFrom("fake_processor_refunds").select(["id", "amount"]).where("intent_id", "=", intent.id).execute();
  expect(made).toEqual([{ id: first.id, amount: 1000 }]);
});

test("a refund is made once whichever instance is asked, and never beyond what was paid", async () => {
  const intent = await one.createIntent({ amount: 2500, currency: "usd", metadata, idempotencyKey: "order-o3" });
  await one.confirmIntent(intent.id, "pm_card_mastercard", "confirm-o3-1");
  const [first, again] = await Promise.all([
    one.refund({ intentId: intent.id, idempotencyKey: "refund-o3" }),
    other.refund({ intentId: intent.id, idempotencyKey: "refund-o3" }),
  ]);
  expect(again).toEqual(first);
  expect(first).toMatchObject({ intentId: intent.id, amount: 2500, status: "succeeded" });
  expect(await domainErrorOf(other.refund({ intentId: intent.id, idempotencyKey: "refund-o3-again" }))).toMatchObject({
    code: "payment.already_refunded",
    details: { intentId: intent.id },
  });
});

test("3-D Secure finished on one instance is seen by the other", async () => {
  const intent = await one.createIntent({ amount: 4200, currency: "usd", metadata, idempotencyKey: "order-o4" });
  expect((await one.confirmIntent(intent.id, "pm_card_threeDSecure2Required", "confirm-o4-1")).status).toBe("requires_action");
  expect((await other.completeAction(intent.id, true)).intent.status).toBe("succeeded");
  expect((await one.retrieveIntent(intent.id)).status).toBe("succeeded");
});

test("an intent no instance made is an error of the processor's, as Stripe's missing resource is: never paid, never refunded", async () => {
  const calls = [() => one.confirmIntent("pi_unknown", "pm_card_visa", "confirm-x"), () => one.refund({ intentId: "pi_unknown", idempotencyKey: "refund-x" })];
  for (const call of calls) {
    expect(await domainErrorOf(call())).toMatchObject({ code: "payment.processor_failed", details: { reason: "no such payment intent: pi_unknown" } });
  }
});

test("a confirmation and a cancellation of one intent at once, on both instances: each answered with the state the intent ends in, never one lost under the other", async () => {
  const intents = await Promise.all(
    Array.from({ length: 40 }, (_, i) => one.createIntent({ amount: 1500 + i, currency: "usd", metadata, idempotencyKey: `order-race-${i}` })),
  );
  for (const intent of intents) {
    const [confirmed, canceled] = await Promise.all([one.confirmIntent(intent.id, "pm_card_visa", `confirm-race-${intent.id}`), other.cancelIntent(intent.id)]);
    const final = (await one.retrieveIntent(intent.id)).status;
    expect(["succeeded", "canceled"]).toContain(final);
    expect([confirmed.status, canceled.status]).toEqual([final, final]);
  }
});

test("a confirmation repeated with its key answers as the first did, whatever the method, and changes nothing", async () => {
  const intent = await one.createIntent({ amount: 4100, currency: "usd", metadata, idempotencyKey: "order-o9" });
  const first = await one.confirmIntent(intent.id, "pm_card_chargeDeclined", "confirm-o9-1");
  expect(first.status).toBe("requires_payment_method");
  expect(await other.confirmIntent(intent.id, "pm_card_visa", "confirm-o9-1")).toEqual(first);
  expect((await one.retrieveIntent(intent.id)).status).toBe("requires_payment_method");
  // A new key is a new attempt.
  expect((await other.confirmIntent(intent.id, "pm_card_visa", "confirm-o9-2")).status).toBe("succeeded");
});

test("the books keep an intent as it was saved: changing the object afterwards, or one read back in the same run, changes nothing kept", async () => {
  const ledger = createPgFakeLedger(database.db);
  const saved = {
    id: "pi_kept",
    status: "requires_payment_method",
    clientSecret: "pi_kept_secret_1",
    amount: 1200,
    currency: "usd",
    metadata,
    lastError: null,
    redirectUrl: null,
    paymentMethodId: null,
  } as const;
  // Unlocked (one intent read at most) and locked (a refund summed) runs alike.
  for (const key of ["kept-1", "kept-2"]) {
    await ledger.once(key, async (book) => {
      if (key === "kept-2") await book.refundedOf("pi_kept");
      const intent = { ...saved, metadata: { ...saved.metadata } };
      await book.saveIntent(intent);
      intent.metadata.orderId = "changed";
      const again = (await book.intent("pi_kept"))!;
      again.amount = 1;
      return null;
    });
    expect(await ledger.once(`read-${key}`, (book) => book.intent("pi_kept"))).toEqual(saved);
  }
});

test("a 3-D Secure answer keeps its event until the shop has it: any instance lists it after the wait, and once delivered no one does", async () => {
  const intent = await one.createIntent({ amount: 1500, currency: "usd", metadata, idempotencyKey: "order-o-3ds" });
  expect((await one.confirmIntent(intent.id, "pm_card_threeDSecure2Required", "confirm-o-3ds-1")).status).toBe("requires_action");
  const { eventId } = await one.completeAction(intent.id, true);
  const listed = (await other.undeliveredEvents(0)).filter((event) => event.eventId === eventId);
  // The event as it was sent: the intent succeeded, with the challenge page no longer named.
  expect(listed).toEqual([{ eventId, intent: { ...intent, status: "succeeded", redirectUrl: null, paymentMethodId: "pm_card_threeDSecure2Required" } }]);
  expect((await other.undeliveredEvents(60_000)).some((event) => event.eventId === eventId)).toBe(false);
  // A delivery that failed: due again a minute later (then two, four…), in the database's clock.
  await one.eventFailed(eventId);
  expect((await other.undeliveredEvents(0)).some((event) => event.eventId === eventId)).toBe(false);
  const { rows } = await sql<{ failures: number; wait: number }>`
    select failures, extract(epoch from due_at - now())::float as wait from fake_processor_events where id = ${eventId}`.execute(database.db);
  expect(rows[0]!.failures).toBe(1);
  expect(rows[0]!.wait).toBeWithin(55, 61);
  await one.eventFailed(eventId);
  const again = await sql<{ wait: number }>`select extract(epoch from due_at - now())::float as wait from fake_processor_events where id = ${eventId}`.execute(
    database.db,
  );
  expect(again.rows[0]!.wait).toBeWithin(115, 121);
  // An hour at most, however often it failed: an event failing for days keeps its hour (2^38 minutes was out of range).
  await sql`update fake_processor_events set failures = 40 where id = ${eventId}`.execute(database.db);
  await one.eventFailed(eventId);
  const capped = await sql<{ failures: number; wait: number }>`
    select failures, extract(epoch from due_at - now())::float as wait from fake_processor_events where id = ${eventId}`.execute(database.db);
  expect(capped.rows[0]!.failures).toBe(41);
  expect(capped.rows[0]!.wait).toBeWithin(3_595, 3_601);
  await sql`update fake_processor_events set due_at = now() where id = ${eventId}`.execute(database.db);
  expect((await other.undeliveredEvents(0)).some((event) => event.eventId === eventId)).toBe(true);
  await other.eventDelivered(eventId);
  expect((await one.undeliveredEvents(0)).some((event) => event.eventId === eventId)).toBe(false);
});

test("a confirmation finds its intent by id, even in the plan made once for all calls: the books' size does not slow it", async () => {
  // A shop that has taken many payments: the planner reads them all to find one when the statement lets it.
  await sql`insert into fake_processor_intents (id, intent)
    select 'pi_old_' || n, jsonb_build_object('id', 'pi_old_' || n, 'status', 'succeeded') from generate_series(1, 10000) as n`.execute(database.db);
  await sql`vacuum analyze fake_processor_intents`.execute(database.db);
  const { db: spy, ran } = recordingDb(database, 1);
  try {
    const fake = createFakeProcessor(cuid2Ids.next, createPgFakeLedger(spy), challengePageAt("http://localhost:3000"));
    const intent = await fake.createIntent({ amount: 1500, currency: "usd", metadata, idempotencyKey: "order-plan" });
    const confirmation = (query: CompiledQuery) => query.sql.includes("update fake_processor_intents");
    const plan = await genericPlanOf(spy, ran, () => fake.confirmIntent(intent.id, "pm_card_visa", "confirm-plan-1"), confirmation);
    expect(plan).toMatch(/Update on fake_processor_intents\s[\s\S]*Index (Only )?Scan using fake_processor_intents_pkey/);
    expect(plan).not.toContain("Seq Scan");
    expect((await fake.retrieveIntent(intent.id)).status).toBe("succeeded");
  } finally {
    await spy.destroy();
  }
});
