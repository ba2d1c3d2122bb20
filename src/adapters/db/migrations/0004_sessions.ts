import { type Kysely, sql } from "kysely";

// Frozen. Sessions live on the server so that sign-out can end them (decisions §10): every token
// names its row, and ending sessions is a write here instead of a cut-off time on the user.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .execute();
  await db.schema.createIndex("sessions_user_live_idx").on("sessions").column("user_id").where(sql.ref("revoked_at"), "is", null).execute();
  await db.schema.createIndex("sessions_expires_idx").on("sessions").column("expires_at").execute();
  await db.schema.alterTable("users").dropColumn("sessions_valid_after").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("sessions_valid_after", "timestamptz").execute();
  await db.schema.dropTable("sessions").execute();
}
