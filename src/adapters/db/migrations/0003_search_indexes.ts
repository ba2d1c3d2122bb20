import { type Kysely, sql } from "kysely";

// Frozen. Catalog search (`search`, `q`) matches anywhere in a word (ILIKE '%…%'), which a b-tree
// cannot serve; trigram GIN indexes can, for every branch of the OR. pg_trgm is a trusted
// extension: the database owner may create it, no superuser needed.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index products_active_search_idx on products
    using gin (name gin_trgm_ops, description gin_trgm_ops) where is_active`.execute(db);
  await sql`create index locations_search_idx on locations
    using gin (name gin_trgm_ops, city gin_trgm_ops, postal_code gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("locations_search_idx").execute();
  await db.schema.dropIndex("products_active_search_idx").execute();
}
