import { afterAll, beforeAll, expect, test } from "bun:test";

import { Migrator } from "kysely/migration";
import { migrateToLatest, pendingMigrations } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { PROBE_WAIT_MS, createPgProbe } from "../../src/adapters/db/store.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

test("a database behind this code's migrations is not ready (503, naming them), and is once they have run", async () => {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo(names.at(-3)!);
  expect(error).toBeUndefined();
  const t = createTestApp({ ...createPgDeps(database.db), database: createPgProbe(database.db, PROBE_WAIT_MS) });

  const behind = await t.call("GET", "/api/health/ready");
  expect(behind.status).toBe(503);
  expect(behind.headers.get("retry-after")).toBe("5");
  expect(behind.body).toEqual({
    status: "unavailable",
    error: "Database migrations are behind",
    database: "ok",
    migrations: { current: false, pending: names.slice(-2) },
    rateLimitStore: "memory",
    outbox: { pending: 0, failed: 0 },
  });
  // Liveness asks only for a round trip: the process is alive, and must not be restarted for it.
  expect((await t.call("GET", "/api/health")).status).toBe(200);

  await migrateToLatest(database.db);
  const ready = await t.call("GET", "/api/health/ready");
  expect(ready.status).toBe(200);
  expect(ready.body).toMatchObject({ status: "ready", migrations: { current: true, pending: [] } });
}, 30_000);

test("readiness reads which migrations ran in one statement, not the catalog, on a database never migrated too (found by an attack: a flood of probes slowed every request)", async () => {
  const fresh = await createTestDatabase({ migrate: false });
  const { db: spy, ran } = recordingDb(fresh, 1);
  try {
    const names = Object.keys(await migrationProvider.getMigrations()).sort();
    expect(await pendingMigrations(spy)).toEqual(names);
    await migrateToLatest(fresh.db);
    ran.length = 0;
    expect(await pendingMigrations(spy)).toEqual([]);
    expect(ran.map((query) => query.sql)).toEqual(["select name from kysely_migration"]);
  } finally {
    await spy.destroy();
    await fresh.drop();
  }
}, 30_000);
