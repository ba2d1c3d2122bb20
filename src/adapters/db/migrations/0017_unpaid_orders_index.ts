import { type Kysely, sql } from "kysely";

// Frozen. A customer's unpaid orders, oldest first, as every checkout asks for them (the unpaid-order
// cap): from an index of PENDING orders only, however many paid orders the customer has.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("orders_pending_by_user_idx")
    .on("orders")
    .columns(["user_id", "created_at", "id"])
    .where(sql.ref("status"), "=", "PENDING")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("orders_pending_by_user_idx").execute();
}
