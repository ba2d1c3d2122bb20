import type { Kysely } from "kysely";

// Frozen. A payment holds no database connection while the processor answers: the order is marked
// as being paid (and since when) in one short transaction, the processor called, and the outcome
// written in another. The mark keeps a second payment of the order out meanwhile.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("payment_started_at", "timestamptz").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("payment_started_at").execute();
}
