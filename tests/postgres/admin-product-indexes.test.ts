import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import { createPgProductRepository } from "../../src/adapters/db/product-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import type { AdminProductQuery } from "../../src/domain/product.ts";
import { type TestDatabase, createTestDatabase, poolOn } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
const ran: CompiledQuery[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // A catalog big enough that the planner would scan it whole without the right index: a few off sale, a few low on stock.
  await sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory, is_active)
    select 'p' || n, 'Sauce number ' || n, 'sauce-' || n, 'A sauce', 500 + n % 2000, 'SKU-' || n, 'https://img.example.com/' || n || '.jpg', n % 6,
           case when n % 200 = 0 then n % 5 else 40 + n % 100 end, n % 150 <> 0
    from generate_series(1, 20000) as n`.execute(database.db);
  await sql`vacuum analyze`.execute(database.db);
  spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: poolOn(database, 1) }),
    log: (event) => void (event.level === "query" && ran.push(event.query)),
  });
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

// Decisions §12: the back office's product filters each have an index (migration 0016).
test("q, anywhere in the name or the SKU, is served by the trigram index over both (PostgreSQL)", async () => {
  expect(await planOf({ q: "number 1234" })).toContain("products_name_sku_search_idx");
  expect(await planOf({ q: "sku-1234" })).toContain("products_name_sku_search_idx");
});

test("low stock is served by the inventory index, and the products off sale by their own (PostgreSQL)", async () => {
  expect(await planOf({ maxInventory: 5 })).toContain("products_inventory_idx");
  expect(await planOf({ isActive: false })).toContain("products_off_sale_created_idx");
});
