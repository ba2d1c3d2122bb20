import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgMailOutbox } from "../../src/adapters/db/mail-outbox-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];

beforeAll(async () => {
  database = await createTestDatabase();
  // A mail outage's backlog: thousands of messages still pending, beside the outbox's sent ones.
  await sql`insert into mail_outbox (id, recipient, subject, text_body, status, next_attempt_at, sent_at)
    select 'm' || n, 'Customer' || n || '@Example.com', 'Welcome', 'Hello', case when n % 4 = 0 then 'pending' else 'sent' end, now(),
           case when n % 4 = 0 then null else now() end
    from generate_series(1, 40000) as n`.execute(database.db);
  await sql`vacuum analyze mail_outbox`.execute(database.db);
  ({ db: spy, ran } = recordingDb(database, 1));
});
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

// Migration 0029: a bounce suppresses the mail still waiting for its address; without an index it
// read every pending message for each bounce.
test("a bounce's suppression finds the address's pending mail through an index, even in the plan made once for all calls (PostgreSQL)", async () => {
  const outbox = createPgMailOutbox(spy);
  const plan = await genericPlanOf(
    spy,
    ran,
    () => outbox.markSuppressed({ to: "customer8@example.com" }),
    (query) => query.sql.includes("lower(recipient)"),
  );
  expect(plan).toContain("mail_outbox_pending_recipient_idx");
  expect(plan).not.toContain("Seq Scan");
  // The address as any case names it; its sent mail stays as it was.
  expect(await outbox.markSuppressed({ to: "CUSTOMER12@example.com" })).toBe(1);
  expect(await outbox.markSuppressed({ to: "customer13@example.com" })).toBe(0);
  const { rows } = await sql<{ status: string }>`select status from mail_outbox where id in ('m12', 'm13') order by id`.execute(database.db);
  expect(rows.map((row) => row.status)).toEqual(["suppressed", "sent"]);
});
