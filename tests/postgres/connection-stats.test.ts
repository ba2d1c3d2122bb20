import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type OpenDatabase, openDatabase } from "../../src/adapters/db/database.ts";
import { withMigratedDatabase } from "../support/embedded-template.ts";
import { eventually } from "../support/eventually.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// What the metrics' storefront_db_connections_* gauges read: connections in use, waiting, and the most.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

/** Holds a transaction open until released, then asks one more query, which has to wait for the connection. */
async function holdAndQueue({ db, connections }: OpenDatabase, expected: { max: number }) {
  await sql`select 1`.execute(db);
  expect(connections()).toEqual({ inUse: 0, waiting: 0, ...expected });
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const held = db.transaction().execute(async (tx) => {
    await sql`select 1`.execute(tx);
    await released;
  });
  let queued: Promise<unknown> = Promise.resolve();
  try {
    await eventually(() => expect(connections()).toEqual({ inUse: 1, waiting: 0, ...expected }), 10_000);
    queued = sql`select 2`.execute(db);
    await eventually(() => expect(connections()).toEqual({ inUse: 1, waiting: 1, ...expected }), 10_000);
  } finally {
    release();
    await Promise.all([held, queued]);
  }
  await eventually(() => expect(connections()).toEqual({ inUse: 0, waiting: 0, ...expected }), 10_000);
}

test("PostgreSQL: the pool's connections checked out, and the asks waiting for one once it is full", async () => {
  const opened = openDatabase({ kind: "postgres", url: database.url, poolMax: 1 });
  try {
    await holdAndQueue(opened, { max: 1 });
  } finally {
    await opened.close();
  }
}, 20_000);

test("the embedded database is one connection: a transaction holds it, and what comes meanwhile waits", async () => {
  // A copy of the migrated embedded database, opened as the shop opens its DATA_DIR: one made in
  // memory costs five seconds of CPU (its initdb), and both are the same single connection.
  const dir = withMigratedDatabase(mkdtempSync(join(tmpdir(), "storefront-pglite-")));
  const opened = openDatabase({ kind: "pglite", directory: join(dir, "pglite"), label: dir, privateDir: null });
  try {
    await holdAndQueue(opened, { max: 1 });
  } finally {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
