import type { Kysely } from "kysely";

// Frozen. The provider's id of the payment that paid an order (a Stripe intent, a Square payment, a
// PayPal capture), so a second payment through the same provider is told from a redelivery.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("paid_reference", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("paid_reference").execute();
}
