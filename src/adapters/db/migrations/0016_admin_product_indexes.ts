import { type Kysely, sql } from "kysely";

// Frozen. The back office lists every product, on sale or not (decisions §12): `q` anywhere in the
// name or the SKU (trigrams; pg_trgm comes from 0003), low stock (inventory at or under a
// threshold the shop sets, so a plain b-tree rather than a partial index), and the products off
// sale, newest first. The catalog's own indexes cover only the products on sale.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index products_name_sku_search_idx on products using gin (name gin_trgm_ops, sku gin_trgm_ops)`.execute(db);
  await db.schema.createIndex("products_inventory_idx").on("products").columns(["inventory", "id"]).execute();
  await db.schema
    .createIndex("products_off_sale_created_idx")
    .on("products")
    .columns(["created_at desc", "id"])
    .where(sql.ref("is_active"), "=", false)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("products_off_sale_created_idx").execute();
  await db.schema.dropIndex("products_inventory_idx").execute();
  await db.schema.dropIndex("products_name_sku_search_idx").execute();
}
