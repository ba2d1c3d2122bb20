import { type Kysely, sql } from "kysely";

// Frozen. An order paid through another provider (Square, PayPal) has its Stripe intent cancelled
// once the payment is committed, so the intent cannot be paid a second time. When that failed (Stripe
// away) nothing asked again: `intent_stop_due_at` says since when the intent is due to be stopped,
// written with the payment, cleared once the processor has stopped it; housekeeping asks again for
// the ones still due. The index holds those only.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("intent_stop_due_at", "timestamptz").execute();
  await db.schema
    .createIndex("orders_intent_stop_due_idx")
    .on("orders")
    .columns(["intent_stop_due_at", "id"])
    .where(sql.ref("intent_stop_due_at"), "is not", null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("orders_intent_stop_due_idx").execute();
  await db.schema.alterTable("orders").dropColumn("intent_stop_due_at").execute();
}
