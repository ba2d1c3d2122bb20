import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { createPgCartRepository } from "../../src/adapters/db/cart-repository.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { type TestDatabase, createPgliteDatabase, createTestDatabase } from "../support/postgres.ts";

// Migration 0022: cart and order lines refer to their product without a foreign key, so writing
// one takes no lock on the product's row (a popular product's row is the one every checkout of it
// updates); a trigger keeps what the keys promised, as a product is never deleted (decisions §2).

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

async function aCustomerAndAProduct(db: Db) {
  await sql`insert into users (id, email, role) values ('u1', 'ada@example.com', 'CUSTOMER')`.execute(db);
  await sql`insert into products (id, name, slug, price_cents, sku, featured_image, heat_level, inventory)
    values ('p1', 'Habanero', 'habanero', 500, 'HAB-1', 'https://images.example.com/h.jpg', 3, 10)`.execute(db);
}

beforeEach(async () => {
  await database.truncate();
  await aCustomerAndAProduct(database.db);
});

/** Whether another session could take the product's row for update this instant (none of its row locks held by anyone). */
async function rowFree(): Promise<boolean> {
  try {
    await database.db.connection().execute((other) => sql`select id from products where id = 'p1' for update nowait`.execute(other));
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "55P03") return false;
    throw error;
  }
}

test("a line going into a cart or an order locks nothing of its product's row while its transaction runs (PostgreSQL)", async () => {
  const address = JSON.stringify({ address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701", country: "US" });
  await database.db.transaction().execute(async (trx) => {
    await createPgCartRepository(trx).add(
      { id: "c1", userId: "u1", productId: "p1", quantity: 2, at: new Date() },
      { id: "a1", userId: "u1", action: "cart.add", entityType: "cart_item", changes: {}, ipAddress: null, userAgent: null, createdAt: new Date() },
    );
    await sql`insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, total_cents,
        shipping_method, shipping_address, billing_address)
      values ('o1', 'SF-20261126-AAAA', 'u1', 'PENDING', 'PENDING', 1000, 0, 0, 1000, '', ${address}, ${address})`.execute(trx);
    await sql`insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents, position)
      values ('i1', 'o1', 'p1', 'Habanero', 'HAB-1', 'https://images.example.com/h.jpg', 2, 500, 1000, 0)`.execute(trx);
    // With the foreign keys, each of these writes held FOR KEY SHARE on the product's row until the commit.
    expect(await rowFree()).toBe(true);
  });
  const lines = await sql<{ n: string }>`select (select count(*) from cart_items) + (select count(*) from order_items) as n`.execute(database.db);
  expect(Number(lines.rows[0]!.n)).toBe(2);
});

async function refusals(db: Db) {
  const outcome = (statement: Promise<unknown>) =>
    statement.then(
      () => "done",
      (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
    );
  return {
    delete: await outcome(sql`delete from products where id = 'p1'`.execute(db)),
    truncate: await outcome(sql`truncate products`.execute(db)),
    newId: await outcome(sql`update products set id = 'p2' where id = 'p1'`.execute(db)),
    offSale: await outcome(sql`update products set is_active = false, name = 'Habanero (old)' where id = 'p1'`.execute(db)),
    left: (await sql<{ id: string; is_active: boolean }>`select id, is_active from products`.execute(db)).rows,
  };
}

const refused = expect.stringMatching(/^23001: products are never deleted nor their ids changed/);

test("a product can be taken off sale and changed, but never deleted, truncated or given another id (PostgreSQL)", async () => {
  expect(await refusals(database.db)).toEqual({ delete: refused, truncate: refused, newId: refused, offSale: "done", left: [{ id: "p1", is_active: false }] });
});

test("the embedded database refuses the same (PGlite)", async () => {
  const embedded = await createPgliteDatabase();
  try {
    await aCustomerAndAProduct(embedded.db);
    expect(await refusals(embedded.db)).toEqual({
      delete: refused,
      truncate: refused,
      newId: refused,
      offSale: "done",
      left: [{ id: "p1", is_active: false }],
    });
  } finally {
    await embedded.close();
  }
});

/** The foreign keys that refer to products. */
async function productKeys(db: Db): Promise<string[]> {
  const keys = await sql<{ conname: string }>`select conname from pg_constraint where confrelid = 'products'::regclass order by conname`.execute(db);
  return keys.rows.map((r) => r.conname);
}

describe("migration 0022 itself (PostgreSQL)", () => {
  let older: TestDatabase;
  beforeEach(async () => {
    older = await createTestDatabase({ migrate: false });
    const { error } = await new Migrator({ db: older.db, provider: migrationProvider }).migrateTo("0021_sales_periods");
    expect(error).toBeUndefined();
  });
  afterEach(() => older.drop());

  test("behind a long reader of the lines it gives up at its lock timeout (it would otherwise queue every catalog read behind it), changing nothing; run again, it goes through", async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let reading = () => {};
    const readerIn = new Promise<void>((resolve) => (reading = resolve));
    const reader = older.db.transaction().execute(async (trx) => {
      await sql`select count(*) from order_items`.execute(trx);
      reading();
      await released;
    });
    await readerIn;
    const started = performance.now();
    const refused = await migrateToLatest(older.db).then(
      () => "migrated",
      (error: Error) => error.message,
    );
    const waited = performance.now() - started;
    release();
    await reader;
    expect(refused).toBe("Migration 0022_product_rows_kept failed: canceling statement due to lock timeout");
    expect(waited).toBeLessThan(20_000);
    expect(await productKeys(older.db)).toEqual(["cart_items_product_id_fkey", "order_items_product_id_fkey"]);
    await migrateToLatest(older.db);
    expect(await productKeys(older.db)).toEqual([]);
  }, 30_000);

  test("its lock timeout is its own: a migration after it in the same run waits on locks as the shop's sessions do (2 s)", async () => {
    const migrations = await migrationProvider.getMigrations();
    const after = {
      async up(db: Kysely<any>) {
        await sql`create table lock_timeout_seen as select current_setting('lock_timeout') as value`.execute(db);
      },
    };
    const { error } = await new Migrator({ db: older.db, provider: { getMigrations: async () => ({ ...migrations, "9999_after": after }) } }).migrateToLatest();
    expect(error).toBeUndefined();
    const seen = await sql<{ value: string }>`select value from lock_timeout_seen`.execute(older.db);
    expect(seen.rows).toEqual([{ value: "2s" }]);
  });

  test("undone, it gives the lines their keys back, first throwing away a cart line whose product was deleted by hand", async () => {
    await migrateToLatest(older.db);
    await aCustomerAndAProduct(older.db);
    await sql`insert into cart_items (id, user_id, product_id, quantity, created_at, updated_at) values ('c1', 'u1', 'p1', 1, now(), now())`.execute(older.db);
    await older.db.connection().execute(async (connection) => {
      await sql`alter table products disable trigger products_never_deleted`.execute(connection);
      await sql`delete from products where id = 'p1'`.execute(connection);
      await sql`alter table products enable trigger products_never_deleted`.execute(connection);
    });
    const { error } = await new Migrator({ db: older.db, provider: migrationProvider }).migrateTo("0021_sales_periods");
    expect(error).toBeUndefined();
    expect((await sql`select id from cart_items`.execute(older.db)).rows).toEqual([]);
    expect(await productKeys(older.db)).toEqual(["cart_items_product_id_fkey", "order_items_product_id_fkey"]);
  });
});
