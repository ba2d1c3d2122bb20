import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { compileOnce } from "../../src/adapters/db/compile-once.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// On PostgreSQL, whose statements the compiled queries are prepared as (an in-memory PGlite takes
// seconds to make).
let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  db = database.db;
});
afterAll(() => database.drop());

test("a query compiled once answers each call with that call's arguments", async () => {
  const echo = compileOnce((db, a: number, b: string) => db.selectNoFrom([sql<number>`${a}::int`.as("a"), sql<string>`${b}::text`.as("b")]));
  expect(await echo(db, 1, "one")).toEqual([{ a: 1, b: "one" }]);
  expect(await echo(db, 2, "two")).toEqual([{ a: 2, b: "two" }]);
});

test("an argument the query reads through instead of passing as a value is refused at once", async () => {
  const misuse = compileOnce((db, user: { id: string }) => db.selectNoFrom(sql<string>`${user.id}::text`.as("id")));
  await expect(misuse(db, { id: "abc" })).rejects.toThrow("argument 1 is not passed to the query as a value");
});
