import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
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
