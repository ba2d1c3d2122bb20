import type { Kysely } from "kysely";

// Frozen. The built-in fake processor's own books (payment intents, refunds, and the answers kept
// for its idempotency keys), in the shop's database so every instance and every restart see the
// same intents, as they would Stripe's. Unused when the shop runs on Stripe.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("fake_processor_intents")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("intent", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(db.fn("now")))
    .execute();
  await db.schema
    .createTable("fake_processor_refunds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("intent_id", "text", (c) => c.notNull())
    .addColumn("amount", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(db.fn("now")))
    .execute();
  await db.schema.createIndex("fake_processor_refunds_intent").on("fake_processor_refunds").column("intent_id").execute();
  await db.schema
    .createTable("fake_processor_replays")
    .addColumn("idempotency_key", "text", (c) => c.primaryKey())
    .addColumn("answer", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(db.fn("now")))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("fake_processor_replays").execute();
  await db.schema.dropTable("fake_processor_refunds").execute();
  await db.schema.dropTable("fake_processor_intents").execute();
}
