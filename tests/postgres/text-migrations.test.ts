import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { createPgProductRepository } from "../../src/adapters/db/product-repository.ts";
import { createPgUserRepository } from "../../src/adapters/db/user-repository.ts";
import { skuOf } from "../../src/domain/product.ts";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// Each test: a database migrated to just before the migration it is about, rows written as the
// code before wrote them, then every migration.
let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterEach(() => database.drop());

async function migratedTo(justBefore: string) {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const before = names[names.indexOf(justBefore) - 1]!;
  expect((await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo(before)).error).toBeUndefined();
}

const address = JSON.stringify({ address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701", country: "US" });

test("migration 0024 writes the tracking numbers already there as carriers do (NFKC, without spaces, a to z in capitals), older ones with fullwidth letters and tabs too, so their webhooks find those orders", async () => {
  await migratedTo("0024_tracking_numbers_as_carriers_write_them");
  await sql`insert into users (id, email, role) values ('u1', 'ada@example.com', 'CUSTOMER')`.execute(database.db);
  const typed = {
    label: "1Z 999 AA1 01 2345 6784",
    small: "1z999aa10123456785",
    mixed: "ez 100 0000 01",
    older: "１z\u00a0999\tAA1",
    kept: "1Z999AA10123456786",
    none: null,
  };
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
    mixed: "EZ100000001",
    older: "1Z999AA1",
    kept: "1Z999AA10123456786",
    none: null,
  });
});

test("migration 0025 composes (NFC) the names and descriptions already there, so a search in either form finds them", async () => {
  await migratedTo("0025_names_in_composed_form");
  const nfd = (text: string) => text.normalize("NFD");
  await sql`insert into users (id, email, role, name) values ('u1', 'renee@example.com', 'CUSTOMER', ${nfd("Renée Müller")}), ('u2', 'ada@example.com', 'CUSTOMER', null)`.execute(
    database.db,
  );
  await sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory)
    values ('p1', ${nfd("Crème Heat")}, 'creme-heat', ${nfd("Brûlée")}, 500, 'CH-1', 'https://images.example.com/c.jpg', 3, 10)`.execute(database.db);

  await migrateToLatest(database.db);
  const names = (await sql<{ name: string | null }>`select name from users order by id`.execute(database.db)).rows.map((r) => r.name);
  expect(names).toEqual(["Renée Müller".normalize("NFC"), null]);
  const product = (await sql<{ name: string; description: string }>`select name, description from products`.execute(database.db)).rows[0];
  expect(product).toEqual({ name: "Crème Heat".normalize("NFC"), description: "Brûlée".normalize("NFC") });
  const products = createPgProductRepository(database.db);
  for (const search of ["crème", nfd("brûlée")]) {
    const found = await products.list({ search, page: 1, limit: 10, sort: "newest" });
    expect(found.items.map((p) => p.id)).toEqual(["p1"]);
  }
  const accounts = await createPgUserRepository(database.db).listAccounts({ q: nfd("müller") }, { page: 1, limit: 10 });
  expect(accounts.items.map((a) => a.email)).toEqual(["renee@example.com"]);
});

const insertProduct = (id: string, sku: string) =>
  sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory)
    values (${id}, ${`Sauce ${id}`}, ${`sauce-${id}`}, '', 500, ${sku}, 'https://images.example.com/s.jpg', 3, 10)`.execute(database.db);

test("migration 0026 writes the SKUs already there as the shop keeps them (NFKC, trimmed), so staff find each by its own SKU again (found by a review)", async () => {
  await migratedTo("0026_skus_as_the_shop_keeps_them");
  const typed = { wide: "ＨＡＢ-1", spaced: "HAB\u00a02\u3000", ogham: "\u1680HAB-3\ufeff", kept: "HAB-4" };
  for (const [id, sku] of Object.entries(typed)) await insertProduct(id, sku);

  await migrateToLatest(database.db);
  const rows = (await sql<{ id: string; sku: string }>`select id, sku from products`.execute(database.db)).rows;
  expect(Object.fromEntries(rows.map((r) => [r.id, r.sku]))).toEqual({ wide: "HAB-1", spaced: "HAB 2", ogham: "HAB-3", kept: "HAB-4" });
  // As the shop folds what staff type: each found by what was typed then.
  const products = createPgProductRepository(database.db);
  for (const [id, sku] of Object.entries(typed)) expect((await products.findBySku(skuOf(sku)))?.id).toBe(id);
});

test("migration 0026 stops, naming them, where two SKUs would become one, and changes nothing", async () => {
  await migratedTo("0026_skus_as_the_shop_keeps_them");
  await insertProduct("wide", "ＨＡＢ-1");
  await insertProduct("plain", "HAB-1");
  await insertProduct("other", " HAB-9");

  const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateToLatest();
  expect(String(error)).toContain("these SKUs are one once written as the shop keeps them (NFKC, trimmed): HAB-1, ＨＡＢ-1; rename all but one of each");
  const skus = (await sql<{ sku: string }>`select sku from products order by id`.execute(database.db)).rows.map((r) => r.sku);
  expect(skus).toEqual([" HAB-9", "HAB-1", "ＨＡＢ-1"]);
});
