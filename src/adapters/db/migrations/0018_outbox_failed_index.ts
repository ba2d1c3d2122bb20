import { type Kysely, sql } from "kysely";

// Frozen. The mail given up on, counted by every readiness check and metrics scrape: from an index of
// failed messages only, however many sent ones the outbox keeps.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("mail_outbox_failed_idx").on("mail_outbox").column("created_at").where(sql.ref("status"), "=", "failed").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("mail_outbox_failed_idx").execute();
}
