import { type Kysely, sql } from "kysely";

// Frozen. The other event providers (decisions §11): which processor paid an order (a payment
// reported by another is flagged, not applied), addresses that bounced or complained (never mailed
// again), and an outbox message's id at the mail provider, its delivery and its suppression.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("paid_via", "text").execute();
  await db.schema.createIndex("orders_tracking_number_idx").on("orders").column("tracking_number").where(sql.ref("tracking_number"), "is not", null).execute();

  await db.schema
    .createTable("email_suppressions")
    .addColumn("email", "text", (c) => c.primaryKey())
    .addColumn("reason", "text", (c) => c.notNull().check(sql`reason in ('bounced','complained')`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("mail_outbox").addColumn("provider_message_id", "text").addColumn("delivered_at", "timestamptz").execute();
  await db.schema.createIndex("mail_outbox_provider_message_idx").on("mail_outbox").column("provider_message_id").execute();
  await sql`alter table mail_outbox drop constraint mail_outbox_status_check`.execute(db);
  await sql`alter table mail_outbox add constraint mail_outbox_status_check check (status in ('pending','sent','failed','suppressed'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table mail_outbox drop constraint mail_outbox_status_check`.execute(db);
  await sql`update mail_outbox set status = 'failed' where status = 'suppressed'`.execute(db);
  await sql`alter table mail_outbox add constraint mail_outbox_status_check check (status in ('pending','sent','failed'))`.execute(db);
  await db.schema.alterTable("mail_outbox").dropColumn("provider_message_id").dropColumn("delivered_at").execute();
  await db.schema.dropTable("email_suppressions").execute();
  await db.schema.dropIndex("orders_tracking_number_idx").execute();
  await db.schema.alterTable("orders").dropColumn("paid_via").execute();
}
