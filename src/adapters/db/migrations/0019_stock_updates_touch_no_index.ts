import { type Kysely, sql } from "kysely";

// Frozen. Every sale updates its products' inventory, and an index on inventory (0016's, for the
// back office's low-stock filter) made each such update rewrite the row in all ten of the table's
// indexes, its two trigram indexes included, while the checkout held the row's lock. Without it a
// stock update changes no indexed column, so PostgreSQL updates the row in place (a HOT update) and
// touches no index; the room left on each page (fillfactor) keeps the new version beside the old.
// Measured on the demo catalog: an update of one product's stock took 1.3 ms and wrote 4.1 KB of WAL
// with that index, and takes 0.15 ms and writes 0.3 KB without it.
// Low stock is then found by the newest-first walk the list already makes: a shop's catalog is
// thousands of rows at most, read in a millisecond or two.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("products_inventory_idx").execute();
  await sql`alter table products set (fillfactor = 80)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table products reset (fillfactor)`.execute(db);
  await db.schema.createIndex("products_inventory_idx").on("products").columns(["inventory", "id"]).execute();
}
