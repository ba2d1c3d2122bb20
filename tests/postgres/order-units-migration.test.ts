import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { createPgSalesRepository } from "../../src/adapters/db/sales-repository.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

const address = JSON.stringify({ address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701", country: "US" });

async function anOrder(id: string, quantities: number[]) {
  await sql`insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, total_cents,
      shipping_method, shipping_address, billing_address, paid_at)
    values (${id}, ${`SF-20261126-${id.toUpperCase()}`}, 'u1', 'CONFIRMED', 'PAID', 1000, 0, 0, 1000, '', ${address}, ${address}, now())`.execute(database.db);
  for (const [position, quantity] of quantities.entries()) {
    await sql`insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents, position)
      values (${`${id}-${position}`}, ${id}, 'p1', 'Habanero', 'HAB-1', 'https://images.example.com/h.jpg', ${quantity}, 500, ${500 * quantity}, ${position})`.execute(
      database.db,
    );
  }
}

test("migration 0020 gives the orders already there their units, the sum of their lines' quantities; an order written without them (the code before, in a rolling restart) is still taken, and the report counts its lines", async () => {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const before = names[names.indexOf("0020_order_units") - 1]!;
  const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo(before);
  expect(error).toBeUndefined();
  await sql`insert into users (id, email, role) values ('u1', 'ada@example.com', 'CUSTOMER')`.execute(database.db);
  await sql`insert into products (id, name, slug, price_cents, sku, featured_image, heat_level, inventory)
    values ('p1', 'Habanero', 'habanero', 500, 'HAB-1', 'https://images.example.com/h.jpg', 3, 10)`.execute(database.db);
  await anOrder("three", [2, 3, 1]);
  await anOrder("one", [1]);
  await anOrder("none", []);

  await migrateToLatest(database.db);
  const rows = await sql<{ id: string; units: number }>`select id, units from orders`.execute(database.db);
  expect(Object.fromEntries(rows.rows.map((r) => [r.id, r.units]))).toEqual({ three: 6, one: 1, none: 0 });
  // An instance still on the code before writes an order without its units: its checkout goes through,
  // and the report counts that order's units from its lines.
  await anOrder("older-code", [2, 2]);
  const day = [new Date(Date.now() - 86_400_000), new Date(Date.now() + 86_400_000)];
  expect((await createPgSalesRepository(database.db).salesIn(day, 10)).sold).toEqual([expect.objectContaining({ period: 0, orders: 4, units: 6 + 1 + 0 + 4 })]);
  // The index of paid orders holds the units, so the report's sums read it alone.
  const index = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'orders_paid_at_idx'`.execute(database.db);
  expect(index.rows[0]?.indexdef).toContain("INCLUDE (subtotal_cents, discount_cents, shipping_cents, tax_cents, units)");
});
