import { afterAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { compileOnce } from "../../src/adapters/db/compile-once.ts";
import { openDatabase } from "../../src/adapters/db/database.ts";

const { db } = openDatabase({ kind: "pglite", directory: null, label: "pglite://memory", privateDir: null });
afterAll(() => db.destroy());

test("a query compiled once answers each call with that call's arguments", async () => {
  const echo = compileOnce((db, a: number, b: string) => db.selectNoFrom([sql<number>`${a}::int`.as("a"), sql<string>`${b}::text`.as("b")]));
  expect(await echo(db, 1, "one")).toEqual([{ a: 1, b: "one" }]);
  expect(await echo(db, 2, "two")).toEqual([{ a: 2, b: "two" }]);
});

test("an argument the query reads through instead of passing as a value is refused at once", async () => {
  const misuse = compileOnce((db, user: { id: string }) => db.selectNoFrom(sql<string>`${user.id}::text`.as("id")));
  await expect(misuse(db, { id: "abc" })).rejects.toThrow("argument 1 is not passed to the query as a value");
});
