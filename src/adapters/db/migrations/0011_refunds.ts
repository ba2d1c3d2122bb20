import { type Kysely, sql } from "kysely";

// Frozen. Refunds the shop owes (decisions §14): marked due in the transaction that owes them, asked
// of the processor with no connection held, under one idempotency key each, and confirmed in a
// second transaction. One still due (never confirmed) is asked again by housekeeping from
// next_attempt_at on, and listed for staff meanwhile.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("refunds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id"))
    .addColumn("intent_id", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
    .addColumn("reason", "text", (c) => c.notNull().check(sql`reason in ('order_ended','late_payment')`))
    .addColumn("amount_cents", "integer", (c) => c.notNull().check(sql`amount_cents >= 0`))
    .addColumn("requested_at", "timestamptz", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0).check(sql`attempts >= 0`))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("confirmed_at", "timestamptz")
    .addColumn("processor_refund_id", "text")
    .execute();
  await db.schema
    .createIndex("refunds_due_idx")
    .on("refunds")
    .columns(["next_attempt_at", "requested_at"])
    .where(sql.ref("confirmed_at"), "is", null)
    .execute();
  await db.schema.createIndex("refunds_order_idx").on("refunds").column("order_id").execute();
  await db.schema.createIndex("refunds_intent_idx").on("refunds").column("intent_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("refunds").execute();
}
