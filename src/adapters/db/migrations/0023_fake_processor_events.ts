import { type Kysely, sql } from "kysely";

// Frozen. The built-in fake processor's events still to deliver (its 3-D Secure answers): written in
// the transaction that changes the intent, deleted once the shop has taken the event, so an event a
// crash (or a failure) kept from the shop is delivered again, as Stripe delivers a webhook again.
// Each row is the event as it was sent (its id and the intent at that moment), how often its
// delivery failed, and when it is due again (later after each failure, as Stripe backs off).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table fake_processor_events (
      id text primary key,
      intent jsonb not null,
      created_at timestamptz not null default now(),
      failures integer not null default 0,
      due_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index fake_processor_events_due_idx on fake_processor_events (due_at)`.execute(db);
}
