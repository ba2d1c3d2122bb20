import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgProductRepository } from "../../src/adapters/db/product-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import type { AdminProductQuery } from "../../src/domain/product.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];

beforeAll(async () => {
  database = await createTestDatabase();
  // A catalog big enough that the planner would scan it whole without the right index: a few off sale, a few low on stock.
  await sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory, is_active)
    select 'p' || n, 'Sauce number ' || n, 'sauce-' || n, 'A sauce', 500 + n % 2000, 'SKU-' || n, 'https://img.example.com/' || n || '.jpg', n % 6,
           case when n % 200 = 0 then n % 5 else 40 + n % 100 end, n % 150 <> 0
    from generate_series(1, 20000) as n`.execute(database.db);
  await sql`vacuum analyze`.execute(database.db);
  ({ db: spy, ran } = recordingDb(database, 1));
});
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

/** The plan PostgreSQL picks for the first page of the back office's list with these filters. */
async function planOf(filters: Partial<AdminProductQuery>): Promise<string> {
  await createPgProductRepository(spy).listForAdmin({ page: 1, limit: 20, ...filters });
  const query = ran.at(-1)!;
  const { rows } = await spy.executeQuery<{ "QUERY PLAN": string }>({ ...query, sql: `explain ${query.sql}` });
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

// Decisions §12: the back office's product filters q and off sale each have an index (migration 0016); low stock has none (0019, below).
test("q, anywhere in the name or the SKU, is served by the trigram index over both (PostgreSQL)", async () => {
  expect(await planOf({ q: "number 1234" })).toContain("products_name_sku_search_idx");
  expect(await planOf({ q: "sku-1234" })).toContain("products_name_sku_search_idx");
});

test("the products off sale are served by their own index (PostgreSQL)", async () => {
  expect(await planOf({ isActive: false })).toContain("products_off_sale_created_idx");
});

// Migration 0019: inventory has no index, so the update every sale makes changes no indexed column
// and PostgreSQL rewrites the row in place (HOT), touching none of the table's ten indexes while the
// checkout holds the row's lock. Low stock is found by reading the catalog, thousands of rows at most.
test("a sale's stock update touches no index (a HOT update), and low stock is still found (PostgreSQL)", async () => {
  const counts = await spy.transaction().execute(async (trx) => {
    const shortfalls = await createPgProductRepository(trx).takeStock(
      [
        { productId: "p41", quantity: 2 },
        { productId: "p42", quantity: 1 },
      ],
      new Date(),
    );
    expect(shortfalls).toEqual([]);
    const { rows } = await sql<{ updated: string; hot: string }>`
      select pg_stat_get_xact_tuples_updated('products'::regclass) as updated, pg_stat_get_xact_tuples_hot_updated('products'::regclass) as hot`.execute(trx);
    return rows[0]!;
  });
  expect({ updated: Number(counts.updated), hot: Number(counts.hot) }).toEqual({ updated: 2, hot: 2 });

  const low = await createPgProductRepository(spy).listForAdmin({ page: 1, limit: 100, maxInventory: 5 });
  expect(low.total).toBe(100);
  expect(low.items.every((product) => product.inventory <= 5)).toBe(true);
});

// The catalog's "on sale" is written into its statement, so the plan PostgreSQL makes once for every
// page and filter still reads the partial indexes of the products on sale.
test("the catalog's pages are read from the index of the products on sale, even in the plan made once for all pages (PostgreSQL)", async () => {
  const products = createPgProductRepository(spy);
  const plan = await genericPlanOf(spy, ran, () => products.list({ page: 2, limit: 20, sort: "newest" }));
  expect(plan).toContain("products_active_created_idx");
  expect(plan).not.toContain("Seq Scan");
});
