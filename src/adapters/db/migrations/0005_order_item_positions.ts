import type { Kysely } from "kysely";

// Frozen. An order's items keep the order its cart lines had: their ids are random and say nothing.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("order_items")
    .addColumn("position", "smallint", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("order_items").dropColumn("position").execute();
}
