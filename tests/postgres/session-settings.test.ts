import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// database.ts: the shop's sessions start no parallel workers (the machine's server allows two),
// compile no statement (JIT) and wait 2 s at most for a lock (the server's default is forever), and
// an operator's PGOPTIONS still has the last word.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

async function sessionSetting(name: "max_parallel_workers_per_gather" | "jit" | "lock_timeout", options?: string): Promise<string> {
  const opened = openDatabase({ kind: "postgres", url: database.url, poolMax: 1, options });
  try {
    const { rows } = await sql<Record<string, string>>`show ${sql.raw(name)}`.execute(opened.db);
    return rows[0]![name]!;
  } finally {
    await opened.close();
  }
}

test("the shop's sessions on PostgreSQL start no parallel workers, unless the operator's PGOPTIONS sets them (PostgreSQL)", async () => {
  expect(await sessionSetting("max_parallel_workers_per_gather")).toBe("0");
  expect(await sessionSetting("max_parallel_workers_per_gather", "-c max_parallel_workers_per_gather=3")).toBe("3");
});

test("the shop's sessions on PostgreSQL compile no statement (JIT is on by default in the server), unless the operator's PGOPTIONS asks (PostgreSQL)", async () => {
  expect(await sessionSetting("jit")).toBe("off");
  expect(await sessionSetting("jit", "-c jit=on")).toBe("on");
});

test("the shop's sessions on PostgreSQL wait 2 s at most for a lock another session holds (the server waits forever), unless PGOPTIONS says otherwise (PostgreSQL)", async () => {
  expect(await sessionSetting("lock_timeout")).toBe("2s");
  expect(await sessionSetting("lock_timeout", "-c lock_timeout=30s")).toBe("30s");
});
