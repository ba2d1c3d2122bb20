import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgLocationRepository } from "../../src/adapters/db/location-repository.ts";
import { createPgProductRepository } from "../../src/adapters/db/product-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { type TestDatabase, createTestDatabase, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];

beforeAll(async () => {
  database = await createTestDatabase();
  // A catalog big enough that the planner would scan it whole without the right index.
  await sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory)
    select 'p' || n, 'Sauce number ' || n, 'sauce-' || n, 'A ' || (array['smoky', 'tangy', 'sweet', 'fiery'])[n % 4 + 1] || ' sauce, batch ' || n,
           500 + n % 2000, 'SKU-' || n, 'https://img.example.com/' || n || '.jpg', n % 6, 10
    from generate_series(1, 20000) as n`.execute(database.db);
  await sql`insert into locations (id, name, address1, city, state, postal_code, latitude, longitude)
    select 'l' || n, 'Shop ' || n, n || ' Main St', 'Town ' || n, 'TX', lpad((n % 99999)::text, 5, '0'), 30 + n % 10 * 0.1, -97 - n % 10 * 0.1
    from generate_series(1, 20000) as n`.execute(database.db);
  // As autovacuum would: rows inserted after the index sit in GIN's pending list until a vacuum.
  await sql`vacuum analyze`.execute(database.db);
  // The log shows the repositories' own SQL, to be explained as it is.
  ({ db: spy, ran } = recordingDb(database, 1));
});
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

/** The plan PostgreSQL picks for the last query a repository ran. */
async function planOfLastQuery(): Promise<string> {
  const query = ran.at(-1);
  if (!query) throw new Error("no query ran");
  const { rows } = await spy.executeQuery<{ "QUERY PLAN": string }>({ ...query, sql: `explain ${query.sql}` });
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

test("a product search anywhere in name or description is served by the trigram index (PostgreSQL)", async () => {
  await createPgProductRepository(spy).list({ search: "batch 1234", sort: "newest", page: 1, limit: 20 });
  expect(await planOfLastQuery()).toContain("products_active_search_idx");
});

test("a location search by name, city or postal-code prefix is served by the trigram index (PostgreSQL)", async () => {
  await createPgLocationRepository(spy).list({ q: "town 777", page: 1, limit: 20 });
  expect(await planOfLastQuery()).toContain("locations_search_idx");
});
