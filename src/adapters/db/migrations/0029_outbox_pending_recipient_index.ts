import { type Kysely, sql } from "kysely";

// Frozen. A bounce or complaint (Resend's webhook) suppresses the mail still waiting for its address:
// found by the address, lowered, among the pending messages only. Without an index it read every
// pending message, all of them in a mail outage's backlog, for each bounce.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index mail_outbox_pending_recipient_idx on mail_outbox (lower(recipient)) where status = 'pending'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("mail_outbox_pending_recipient_idx").execute();
}
