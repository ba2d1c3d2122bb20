import { type Kysely, sql } from "kysely";

// Frozen. What a process killed mid-way leaves, found again (decisions §15): housekeeping looks
// for payment attempts never settled by when they began, and a checkout's Idempotency-Key records
// the order its transaction made, so a replay answers that order instead of running again.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("orders_payment_started_idx")
    .on("orders")
    .columns(["payment_started_at", "id"])
    .where(sql.ref("payment_started_at"), "is not", null)
    .execute();
  await db.schema
    .alterTable("idempotency_keys")
    .addColumn("order_id", "text", (c) => c.references("orders.id").onDelete("cascade"))
    .execute();
  // An order undone gives up the keys that made it.
  await db.schema.createIndex("idempotency_keys_order_idx").on("idempotency_keys").column("order_id").where(sql.ref("order_id"), "is not", null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("idempotency_keys_order_idx").execute();
  await db.schema.alterTable("idempotency_keys").dropColumn("order_id").execute();
  await db.schema.dropIndex("orders_payment_started_idx").execute();
}
