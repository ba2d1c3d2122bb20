import { type Kysely, sql } from "kysely";

// Frozen. Housekeeping deletes the sessions that have ended, expired or signed out, every minute. The
// expired ones come from the index by expiry; the signed-out ones had none, so each run read every
// session, live ones included (1,000,000 live sessions: 100 ms and 160 MB read a minute, for a few
// rows). This index holds the signed-out sessions only, the few that wait for the next run.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("sessions_revoked_idx").on("sessions").column("revoked_at").where(sql.ref("revoked_at"), "is not", null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("sessions_revoked_idx").execute();
}
