import { afterAll, beforeAll, expect, test } from "bun:test";
import { type KyselyPlugin, sql } from "kysely";
import { compileOnce, compilePerShape } from "../../src/adapters/db/compile-once.ts";
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

test("a query compiled once per shape answers each shape with its own statement and each call with its arguments", async () => {
  // The shape is which of two statements a call asks for: its value times one, or times ten.
  const times = compilePerShape(
    (by: "one" | "ten") => by,
    (db, by, value: number) => db.selectNoFrom(by === "one" ? sql<number>`${value}::int`.as("v") : sql<number>`${value}::int * 10`.as("v")),
  );
  expect(await times(db, "one", 2)).toEqual([{ v: 2 }]);
  expect(await times(db, "ten", 2)).toEqual([{ v: 20 }]);
  expect(await times(db, "one", 3)).toEqual([{ v: 3 }]);
  expect(await times(db, "ten", 4)).toEqual([{ v: 40 }]);
});

test("a database with plugins sees every call's statement, compiled once or not (the tests' faults are injected there)", async () => {
  const seen: unknown[] = [];
  const watching: KyselyPlugin = {
    transformQuery: ({ node }) => (seen.push(node), node),
    transformResult: async ({ result }) => result,
  };
  const echo = compileOnce((db, a: number) => db.selectNoFrom(sql<number>`${a}::int`.as("a")));
  const times = compilePerShape(
    (by: "one" | "ten") => by,
    (db, by, value: number) => db.selectNoFrom(by === "one" ? sql<number>`${value}::int`.as("v") : sql<number>`${value}::int * 10`.as("v")),
  );
  // Compiled already, on the database without plugins.
  await echo(db, 0);
  await times(db, "ten", 0);
  const watched = db.withPlugin(watching);
  expect(await echo(watched, 1)).toEqual([{ a: 1 }]);
  expect(await times(watched, "ten", 2)).toEqual([{ v: 20 }]);
  expect(await echo(watched, 3)).toEqual([{ a: 3 }]);
  expect(seen).toHaveLength(3);
});
