import { CompiledQuery, type Kysely, type Transaction, sql } from "kysely";
import type { PaymentIntent, Refund } from "../../application/ports/payments.ts";
import { type FakeBook, type FakeLedger, noEventUnderAKey } from "../payments/fake-processor.ts";
import { refuseProcessorCallInsideTransaction } from "../transaction-scope.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import { asDatabaseRefusal, violatedUniqueConstraint } from "./sql-helpers.ts";
import type { Database } from "./tables.ts";

// Every payment confirms its intent (compiled once: see compile-once.ts).
const lockIntent = compileOnce((db, id: string) => db.selectFrom("fake_processor_intents").select("intent").where("id", "=", id).forUpdate());
const lockedIntent = async (db: Kysely<Database>, id: string) => (await lockIntent(db, id))[0];

const refundedOf = async (db: Kysely<Database>, intentId: string) =>
  Number(
    (
      await db
        .selectFrom("fake_processor_refunds")
        .select(sql<string>`coalesce(sum(amount), 0)`.as("total"))
        .where("intent_id", "=", intentId)
        .executeTakeFirstOrThrow()
    ).total,
  );

function bookOf(trx: Transaction<Database>): FakeBook {
  return {
    async intent(id) {
      const row = await lockedIntent(trx, id);
      return row ? (row.intent as PaymentIntent) : null;
    },
    async saveIntent(intent) {
      const json = JSON.stringify(intent);
      await trx
        .insertInto("fake_processor_intents")
        .values({ id: intent.id, intent: json })
        .onConflict((conflict) => conflict.column("id").doUpdateSet({ intent: json }))
        .execute();
    },
    refundedOf: (intentId) => refundedOf(trx, intentId),
    async saveRefund(refund: Refund) {
      await trx.insertInto("fake_processor_refunds").values({ id: refund.id, intent_id: refund.intentId, amount: refund.amount }).execute();
    },
    async saveEvent(event) {
      await trx
        .insertInto("fake_processor_events")
        .values({ id: event.id, intent: JSON.stringify(event.intent) })
        .execute();
    },
  };
}

/**
 * One statement: the key claimed with its answer, and, only if it was claimed, the run's intents and
 * refunds written (each as JSON text; compiled once: see compile-once.ts).
 */
const keepStatement = compileOnce(
  (_db, key: string, answer: string, intents: string, refunds: string) =>
    sql<{ claimed: number }>`
    with claim as (
      insert into fake_processor_replays (idempotency_key, answer) values (${key}, ${answer}::jsonb)
      on conflict (idempotency_key) do nothing
      returning idempotency_key
    ), intents as (
      insert into fake_processor_intents (id, intent)
      select x.id, x.intent from claim, jsonb_to_recordset(${intents}::jsonb) as x(id text, intent jsonb)
      on conflict (id) do update set intent = excluded.intent
    ), refunds as (
      insert into fake_processor_refunds (id, intent_id, amount)
      select x.id, x.intent_id, x.amount from claim, jsonb_to_recordset(${refunds}::jsonb) as x(id text, intent_id text, amount int)
    )
    select count(*)::int as claimed from claim`,
);

/**
 * The key claimed with its answer, and the run's intents and refunds written if it was. True when
 * claimed; false when another run kept the key first (the statement waits for a run holding it to
 * end), and then nothing was written.
 */
async function keep(db: Kysely<Database>, key: string, answer: unknown, intents: PaymentIntent[], refunds: Refund[]): Promise<boolean> {
  const [row] = await keepStatement(
    db,
    key,
    JSON.stringify(answer ?? null),
    JSON.stringify(intents.map((intent) => ({ id: intent.id, intent }))),
    JSON.stringify(refunds.map((r) => ({ id: r.id, intent_id: r.intentId, amount: r.amount }))),
  );
  return row!.claimed > 0;
}

// The optimistic way (see createPgFakeLedger): an intent read without a lock, with its version.
const readIntent = compileOnce((db, id: string) =>
  db
    .selectFrom("fake_processor_intents")
    .select(["intent", sql<string>`xmin::text`.as("version")])
    .where("id", "=", id),
);

/**
 * One statement: the intent the run read (at most one; none: a null id) rewritten, as it saved it or
 * as it read it, only if it is still at the version read; the key claimed with its answer only if
 * it was; new intents written only if the key was claimed. The key claimed already (by a run that
 * finished first) is a unique violation, which undoes the statement's rewrite too. The intent is
 * found by its id: joined to a JSON record set instead (which the planner takes for 100 rows),
 * PostgreSQL read the whole table for each confirmation once it held some thousands of intents.
 */
const keepIfUnchanged = compileOnce(
  (_db, key: string, answer: string, readId: string | null, readVersion: string | null, rewrite: string | null, readCount: number, fresh: string) =>
    sql<{ claimed: number }>`
    with rewritten as (
      update fake_processor_intents set intent = ${rewrite}::jsonb
      where id = ${readId} and xmin::text = ${readVersion}
      returning id
    ), claim as (
      insert into fake_processor_replays (idempotency_key, answer)
      select ${key}, ${answer}::jsonb where (select count(*) from rewritten) = ${readCount}::int
      returning idempotency_key
    ), intents as (
      insert into fake_processor_intents (id, intent)
      select x.id, x.intent from claim, jsonb_to_recordset(${fresh}::jsonb) as x(id text, intent jsonb)
      on conflict (id) do update set intent = excluded.intent
    )
    select count(*)::int as claimed from claim`,
);

/**
 * A copy of what the book keeps, as the ledger keeps it: intents and refunds are plain JSON (stored
 * as jsonb), so a JSON copy is exact, and some five times cheaper than structuredClone in Bun (two
 * or three a payment).
 */
const copyOf = <T extends PaymentIntent | Refund>(kept: T): T => JSON.parse(JSON.stringify(kept));

/** Thrown by the optimistic way's book when the work asks what it cannot answer without locks. */
const NEEDS_LOCKS = Symbol("needs locks");

/**
 * `work` run without a transaction: the intents it reads are read without locks, and what it did
 * is kept by keepIfUnchanged, only if none of them changed meanwhile. Two statements for a run that
 * reads and saves one intent (a confirmation), where the locked way takes four. Its answer, or null
 * when the locked way must run instead: an intent read changed, the key was kept already, the work
 * needs the refunds (summed under locks) or failed (the locked way runs it again, and answers as
 * it always has).
 */
async function onceUnlocked<T>(db: Db, key: string, work: (book: FakeBook) => Promise<T>): Promise<{ answer: T } | null> {
  const read = new Map<string, { version: string; intent: unknown }>();
  const intents = new Map<string, PaymentIntent>();
  const book: FakeBook = {
    async intent(id) {
      const held = intents.get(id);
      if (held) return copyOf(held);
      // One intent at most: with two, one found changed would stop the claim but not the other's rewrite.
      if (read.size > 0 && !read.has(id)) throw NEEDS_LOCKS;
      const [row] = await readIntent(db, id);
      if (!row) return null;
      if (!read.has(id)) read.set(id, { version: row.version, intent: row.intent });
      return row.intent as PaymentIntent;
    },
    async saveIntent(intent) {
      intents.set(intent.id, copyOf(intent));
    },
    refundedOf: () => Promise.reject(NEEDS_LOCKS),
    saveRefund: () => Promise.reject(NEEDS_LOCKS),
    saveEvent: noEventUnderAKey,
  };
  let answer: T;
  try {
    answer = await work(book);
  } catch {
    return null;
  }
  const [readId, readAt] = [...read][0] ?? [null, null];
  const rewrite = readId === null ? null : JSON.stringify(intents.get(readId) ?? readAt!.intent);
  const fresh = [...intents.values()].filter((intent) => !read.has(intent.id)).map((intent) => ({ id: intent.id, intent }));
  try {
    const [row] = await keepIfUnchanged(db, key, JSON.stringify(answer ?? null), readId, readAt?.version ?? null, rewrite, read.size, JSON.stringify(fresh));
    return row!.claimed > 0 ? { answer } : null;
  } catch (error) {
    // The statement's one unique key that can be broken: the replays'.
    if (violatedUniqueConstraint(error) !== null) return null;
    throw error;
  }
}

const BEGIN = CompiledQuery.raw("begin");
const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");

async function keptAnswer(db: Kysely<Database>, key: string): Promise<{ answer: unknown } | undefined> {
  return db.selectFrom("fake_processor_replays").select("answer").where("idempotency_key", "=", key).executeTakeFirst();
}

/** The books' database away (or a lock of theirs held too long) is the shop's: a 503 to try again, as for any statement of the shop's. */
const throwAsRefusal = (error: unknown) => {
  throw asDatabaseRefusal(error);
};

/**
 * The fake processor's books in the shop's database: every instance, the CLI and a restarted server
 * see the same intents.
 *
 * A run under an idempotency key (`once`) costs as few round trips as it can, as Stripe costs the
 * shop's database none: its writes are held until its work is done, then written in the one
 * statement that claims the key with the answer (written only if the key was claimed). It runs
 * first without a transaction, reading intents without locks, and keeps what it did only if none of
 * the intents it read changed meanwhile (onceUnlocked): creating an intent is one statement,
 * confirming one two. Otherwise it runs again the locked way: a transaction is begun as the work
 * first reads the books, and what it reads stays locked until the commit. Runs of one key at once
 * all work, and the second to claim it writes nothing and answers the first's answer; an intent
 * they both touch is rewritten by the first, so the second, seeing it changed, reads it again under
 * its lock and sees what the first did.
 */
export function createPgFakeLedger(db: Db): FakeLedger {
  return {
    run: (work) => {
      refuseProcessorCallInsideTransaction();
      return db
        .transaction()
        .execute((trx) => work(bookOf(trx)))
        .catch(throwAsRefusal);
    },
    once: async <T>(key: string, work: (book: FakeBook) => Promise<T>) => {
      refuseProcessorCallInsideTransaction();
      const unlocked = await onceUnlocked(db, key, work).catch(throwAsRefusal);
      if (unlocked) return unlocked.answer;
      return db
        .connection()
        .execute(async (conn) => {
          let begun = false;
          const begin = async () => {
            if (!begun) await conn.executeQuery(BEGIN);
            begun = true;
          };
          const intents = new Map<string, PaymentIntent>();
          const refunds: Refund[] = [];
          const book: FakeBook = {
            async intent(id) {
              const held = intents.get(id);
              if (held) return copyOf(held);
              await begin();
              const row = await lockedIntent(conn, id);
              return row ? (row.intent as PaymentIntent) : null;
            },
            async saveIntent(intent) {
              intents.set(intent.id, copyOf(intent));
            },
            async refundedOf(intentId) {
              await begin();
              return (await refundedOf(conn, intentId)) + refunds.filter((r) => r.intentId === intentId).reduce((sum, r) => sum + r.amount, 0);
            },
            async saveRefund(refund) {
              refunds.push(copyOf(refund));
            },
            saveEvent: noEventUnderAKey,
          };
          try {
            const answer = await work(book);
            const claimed = await keep(conn, key, answer, [...intents.values()], refunds);
            if (begun) await conn.executeQuery(COMMIT);
            begun = false;
            if (claimed) return answer;
          } catch (error) {
            if (begun) await conn.executeQuery(ROLLBACK).catch(() => {});
            // A run of the key that finished first may be why this one failed (what it refunded is gone, say): its answer stands.
            const kept = await keptAnswer(conn, key).catch(() => undefined);
            if (kept) return kept.answer as T;
            throw error;
          }
          return (await keptAnswer(conn, key))!.answer as T;
        })
        .catch(throwAsRefusal);
    },
    async undelivered(waitedMs, limit) {
      const rows = await db
        .selectFrom("fake_processor_events")
        .select(["id", "intent"])
        .where("due_at", "<=", sql<Date>`now()`)
        .where("created_at", "<=", sql<Date>`now() - make_interval(secs => ${waitedMs / 1000})`)
        .orderBy("due_at")
        .limit(limit)
        .execute()
        .catch(throwAsRefusal);
      return rows.map((row) => ({ id: row.id, intent: row.intent as PaymentIntent }));
    },
    async delivered(eventId) {
      await db.deleteFrom("fake_processor_events").where("id", "=", eventId).execute().catch(throwAsRefusal);
    },
    async deliveryFailed(eventId) {
      // The wait as redeliveryWaitMs reckons it, counted in the database's clock as due_at is; the
      // exponent capped first, as an interval of 2^38 minutes is out of PostgreSQL's range (found by an attack).
      await db
        .updateTable("fake_processor_events")
        .set((eb) => ({
          failures: eb("failures", "+", 1),
          due_at: sql<Date>`now() + least(interval '1 minute' * power(2, least(failures, 6)), interval '1 hour')`,
        }))
        .where("id", "=", eventId)
        .execute()
        .catch(throwAsRefusal);
    },
  };
}
