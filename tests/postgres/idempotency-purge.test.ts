import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgIdempotencyKeys } from "../../src/adapters/db/idempotency-keys.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { eventually } from "../support/eventually.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let purger: Kysely<Database>;
let ran: CompiledQuery[];
const DAY = 86_400_000;
const now = new Date("2026-11-27T12:00:00Z");

beforeAll(async () => {
  database = await createTestDatabase();
  await sql`insert into users (id, email) values ('u1', 'ann@example.com')`.execute(database.db);
  ({ db: purger, ran } = recordingDb(database, 1));
});
beforeEach(() => sql`delete from idempotency_keys`.execute(database.db));
afterAll(async () => {
  await purger.destroy();
  await database.drop();
});

// Housekeeping purges expired idempotency keys a batch at a time, each found by its row's address.
// A key expired is claimed again by the next request under it, which makes it a live key at a new
// address: a purge waiting for that claim must not delete it (its checkout would then run twice).
const claimOf = (key: string, at: Date) => ({ userId: "u1", key, fingerprint: "f", now: at, expiresAt: new Date(at.getTime() + DAY), staleBefore: at });

/** A backlog of expired keys (housekeeping stopped for a while), the oldest expired a day ago, each a second after the one before. */
async function aBacklog(keys: number) {
  await sql`insert into idempotency_keys (user_id, key, fingerprint, created_at, expires_at)
    select 'u1', 'k' || n, 'f', ${now}::timestamptz - interval '2 days', ${now}::timestamptz - interval '1 day' + n * interval '1 second'
    from generate_series(1, ${keys}::int) as n`.execute(database.db);
  // As the autovacuum leaves it: a table of thousands of rows, whose batches its plans read by their addresses.
  await sql`vacuum analyze idempotency_keys`.execute(database.db);
}

test("a key claimed again while a purge waits for it is kept: the purge deletes a key only if it is still expired", async () => {
  await aBacklog(20_000);
  // The oldest of them, claimed again by a new request under it, whose checkout holds the claim while the purge comes.
  let purge: Promise<number> | undefined;
  await database.db.transaction().execute(async (trx) => {
    expect((await createPgIdempotencyKeys(trx).claim(claimOf("k1", now))).kind).toBe("claimed");
    purge = createPgIdempotencyKeys(purger).purgeExpired(now, 5_000);
    // Until the purge waits for the claim's row (a transaction reads pg_stat_activity once, unless told to read it again).
    await eventually(async () => {
      await sql`select pg_stat_clear_snapshot()`.execute(trx);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like 'delete from "idempotency_keys"%'`.execute(trx);
      expect(rows[0]!.n).toBe(1);
    });
  });
  expect(await purge).toBe(4_999);
  const kept = await database.db.selectFrom("idempotency_keys").select("expires_at").where("key", "=", "k1").executeTakeFirst();
  expect(kept?.expires_at).toEqual(new Date(now.getTime() + DAY));
});

test("the purge's delete checks each key's expiry itself, beside its address, in the plan made once for all calls", async () => {
  await aBacklog(20_000);
  const plan = await genericPlanOf(purger, ran, () => createPgIdempotencyKeys(purger).purgeExpired(now, 5_000));
  expect(plan).toMatch(/Tid Scan on idempotency_keys\s[\s\S]*Filter: \(expires_at <= /);
  expect(plan).not.toContain("Seq Scan");
});
