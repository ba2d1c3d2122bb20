import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// database.ts: the shop's sessions start no parallel workers (the machine's server allows two),
// and an operator's PGOPTIONS still has the last word.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

async function workersPerGather(options?: string): Promise<string> {
  const opened = openDatabase({ kind: "postgres", url: database.url, poolMax: 1, options });
  try {
    const { rows } = await sql<{ max_parallel_workers_per_gather: string }>`show max_parallel_workers_per_gather`.execute(opened.db);
    return rows[0]!.max_parallel_workers_per_gather;
  } finally {
    await opened.close();
  }
}

test("the shop's sessions on PostgreSQL start no parallel workers, unless the operator's PGOPTIONS sets them (PostgreSQL)", async () => {
  expect(await workersPerGather()).toBe("0");
  expect(await workersPerGather("-c max_parallel_workers_per_gather=3")).toBe("3");
});
