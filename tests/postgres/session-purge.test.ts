import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgSessionRepository } from "../../src/adapters/db/session-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];
const now = new Date("2026-11-27T12:00:00Z");

beforeAll(async () => {
  database = await createTestDatabase();
  // A shop some weeks old: many sessions still live (30 days each), a few signed out or expired since the last run.
  await sql`insert into users (id, email) select 'u' || n, 'user' || n || '@example.com' from generate_series(1, 1000) as n`.execute(database.db);
  await sql`insert into sessions (id, user_id, created_at, expires_at, revoked_at)
    select 's' || n, 'u' || (1 + n % 1000), ${now}::timestamptz - interval '1 day', ${now}::timestamptz + interval '29 days',
           case when n % 10000 = 0 then ${now}::timestamptz - interval '1 minute' end
    from generate_series(1, 60000) as n`.execute(database.db);
  await sql`insert into sessions (id, user_id, created_at, expires_at) select 'e' || n, 'u1', ${now}::timestamptz - interval '31 days', ${now}::timestamptz - interval '1 minute'
    from generate_series(1, 5) as n`.execute(database.db);
  await sql`vacuum analyze sessions`.execute(database.db);
  ({ db: spy, ran } = recordingDb(database, 1));
});
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

// Migration 0028: every housekeeping run purges the sessions that have ended; the signed-out ones
// had no index, so each run read every live session to find a few.
test("the purge of ended sessions finds the expired and the signed-out ones through indexes, never reading the live ones (PostgreSQL)", async () => {
  const purge = () => createPgSessionRepository(spy).purgeEnded(now, 5_000);
  const expired = await genericPlanOf(spy, ran, purge, (query) => query.sql.includes('"expires_at"'));
  const revoked = await genericPlanOf(spy, ran, purge, (query) => query.sql.includes('"revoked_at"'));
  for (const plan of [expired, revoked]) expect(plan).not.toContain("Seq Scan on sessions");
  expect(expired).toContain("sessions_expires_idx");
  expect(revoked).toContain("sessions_revoked_idx");
  expect(await purge()).toBe(0);
  const { rows } = await sql<{ n: string }>`select count(*) as n from sessions`.execute(database.db);
  expect(Number(rows[0]!.n)).toBe(60000 - 6);
});
