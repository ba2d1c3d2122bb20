import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { aUser } from "../support/builders.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("parameterized queries run as named prepared statements, one per distinct SQL text", async () => {
  const prepared = await database.db.transaction().execute(async (trx) => {
    for (const email of ["a@example.com", "b@example.com", "c@example.com"]) {
      await trx.selectFrom("users").select("id").where("email", "=", email).execute();
    }
    await trx.selectFrom("products").select("id").where("slug", "=", "x").execute();
    // Same connection: the statements this session has prepared.
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where name like 'sf%'`.execute(trx);
    return rows.map((r) => r.statement);
  });
  expect(prepared.filter((s) => s.includes('from "users"'))).toHaveLength(1);
  expect(prepared.filter((s) => s.includes('from "products"'))).toHaveLength(1);
});

test("a column added while the shop runs (a migration of the next release) spoils no statement prepared before it: each is prepared again, in and out of a transaction (found by an attack on an upgrade)", async () => {
  const own = await createTestDatabase();
  // One connection, so the statements prepared before the change are the ones asked again.
  const { db } = openDatabase({ kind: "postgres", url: own.url, poolMax: 1 });
  const uow = createPgUnitOfWork(db);
  try {
    // Users are read whole (select *), as orders and sessions are.
    const ada = aUser();
    await uow.transaction((tx) => tx.users.create(ada));
    const read = () => uow.read((repos) => repos.users.findById(ada.id));
    const inTransaction = () => uow.transaction((tx) => tx.users.lock(ada.id));
    expect((await read())?.id).toBe(ada.id);
    expect((await inTransaction())?.id).toBe(ada.id);
    // Asked first inside a transaction, which the refusal spoils: the transaction runs again.
    await sql`alter table users add column next_release_note text`.execute(own.db);
    expect((await inTransaction())?.id).toBe(ada.id);
    expect((await read())?.id).toBe(ada.id);
    // Asked first outside one: the statement goes again.
    await sql`alter table users add column another_note text`.execute(own.db);
    expect((await read())?.id).toBe(ada.id);
    expect((await inTransaction())?.id).toBe(ada.id);
  } finally {
    await db.destroy();
    await own.drop();
  }
});
