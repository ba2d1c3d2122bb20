import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

const address = JSON.stringify({ address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701", country: "US" });

test("migration 0024 writes the tracking numbers already there as carriers do, without spaces and in capitals, so their webhooks find those orders", async () => {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const before = names[names.indexOf("0024_tracking_numbers_as_carriers_write_them") - 1]!;
  expect((await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo(before)).error).toBeUndefined();
  await sql`insert into users (id, email, role) values ('u1', 'ada@example.com', 'CUSTOMER')`.execute(database.db);
  const typed = { label: "1Z 999 AA1 01 2345 6784", small: "1z999aa10123456785", tab: "EZ\t100 0000 01", kept: "1Z999AA10123456786", none: null };
  for (const [id, tracking] of Object.entries(typed)) {
    await sql`insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, total_cents,
        shipping_method, shipping_address, billing_address, tracking_number)
      values (${id}, ${`SF-20261127-${id.toUpperCase()}`}, 'u1', 'SHIPPED', 'PAID', 1000, 0, 0, 1000, '', ${address}, ${address}, ${tracking})`.execute(
      database.db,
    );
  }

  await migrateToLatest(database.db);
  const rows = (await sql<{ id: string; tracking_number: string | null }>`select id, tracking_number from orders`.execute(database.db)).rows;
  expect(Object.fromEntries(rows.map((r) => [r.id, r.tracking_number]))).toEqual({
    label: "1Z999AA10123456784",
    small: "1Z999AA10123456785",
    tab: "EZ100000001",
    kept: "1Z999AA10123456786",
    none: null,
  });
});
