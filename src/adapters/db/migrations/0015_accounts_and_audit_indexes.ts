import { type Kysely, sql } from "kysely";

// Frozen. The back office's lists of accounts and of the audit log (decisions §12), newest first:
// - accounts in creation order, alone or of one role; `q` (e-mail or name, anywhere in them) by
//   trigrams, as the catalog's search (0003), one index a column: over both columns at once, the
//   planner priced its scans above reading the whole table, and read it (75 ms over 100,000
//   accounts, where the two indexes take 2 ms);
// - the audit log in time order; an exact action, or a prefix (`order.`), with its entries in time
//   order (text_pattern_ops, so LIKE 'prefix%' is a range of it whatever the collation). By user
//   and by entity, the indexes of 0001 serve.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index users_created_idx on users (created_at desc, id desc)`.execute(db);
  await sql`create index users_role_created_idx on users (role, created_at desc, id desc)`.execute(db);
  await sql`create index users_email_search_idx on users using gin (email gin_trgm_ops)`.execute(db);
  await sql`create index users_name_search_idx on users using gin (name gin_trgm_ops)`.execute(db);
  await sql`create index audit_log_created_idx on audit_log (created_at desc, id desc)`.execute(db);
  await sql`create index audit_log_action_created_idx on audit_log (action text_pattern_ops, created_at desc)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    "audit_log_action_created_idx",
    "audit_log_created_idx",
    "users_name_search_idx",
    "users_email_search_idx",
    "users_role_created_idx",
    "users_created_idx",
  ]) {
    await db.schema.dropIndex(name).execute();
  }
}
