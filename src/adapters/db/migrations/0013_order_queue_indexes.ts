import { type Kysely, sql } from "kysely";

// Frozen. The back office's order queue (decisions §12) lists every customer's orders newest first,
// filtered by status, payment status, creation time, customer and q; the export reads them in the
// same order. Each filter gets an index that yields its orders already in that order, so a first page
// reads some twenty rows instead of sorting the table (the customer's is 0001's orders_user_created_idx).
// q looks anywhere inside the order number: a trigram index (pg_trgm, created by 0003). Its other
// half, the customer's e-mail and name, is served by the users' trigram indexes of 0015 (the
// accounts list searches the same two columns).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("orders_created_idx").on("orders").columns(["created_at", "id"]).execute();
  await db.schema.createIndex("orders_status_created_idx").on("orders").columns(["status", "created_at", "id"]).execute();
  await db.schema.createIndex("orders_payment_status_created_idx").on("orders").columns(["payment_status", "created_at", "id"]).execute();
  await sql`create index orders_number_trigram_idx on orders using gin (order_number gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ["orders_number_trigram_idx", "orders_payment_status_created_idx", "orders_status_created_idx", "orders_created_idx"]) {
    await db.schema.dropIndex(index).execute();
  }
}
