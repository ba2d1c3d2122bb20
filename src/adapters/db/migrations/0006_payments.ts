import { type Kysely, sql } from "kysely";

// Frozen. Payments (decisions §4): each attempt at paying an order is counted, so each gets its own
// idempotency key at the processor; the first answer to a request with an Idempotency-Key is kept.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("orders")
    .addColumn("payment_attempts", "integer", (c) => c.notNull().defaultTo(0).check(sql`payment_attempts >= 0`))
    .execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    // Null while the first request is still running.
    .addColumn("response_status", "smallint")
    .addColumn("response_body", "jsonb")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pkey", ["user_id", "key"])
    .execute();
  await db.schema.createIndex("idempotency_keys_expires_idx").on("idempotency_keys").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("idempotency_keys").execute();
  await db.schema.alterTable("orders").dropColumn("payment_attempts").execute();
}
