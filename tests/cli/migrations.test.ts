import { afterEach, expect, test } from "bun:test";
import { sql } from "kysely";
import { runCliHere } from "../support/cli.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// The schema as each command finds it, while other releases may be serving the same database
// (found by an attack on an upgrade: every command migrated first, read-only ones too).
const TIMEOUT = 30_000;
let databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases) await database.drop();
  databases = [];
}, TIMEOUT);

async function aDatabase(migrate: boolean) {
  const database = await createTestDatabase({ migrate });
  databases.push(database);
  return database;
}

const migrationsRun = async (database: TestDatabase) =>
  (await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(database.db).catch(() => ({ rows: [{ n: 0 }] }))).rows[0]!.n;

test(
  "with MIGRATE_ON_START=false a command leaves the schema to db:migrate: on a database behind this code it stops naming what is missing, and migrates nothing",
  async () => {
    const database = await aDatabase(false);
    const env = { DATABASE_URL: database.url, MIGRATE_ON_START: "false" };
    const refused = await runCliHere(env, "users:list");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/The database is behind this code by \d+ migration\(s\) \(0001_initial, .*\): run `npm run cli -- db:migrate` first/);
    expect(await migrationsRun(database)).toBe(0);

    const migrated = await runCliHere(env, "db:migrate");
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain("Applied 0001_initial");
    expect((await runCliHere(env, "users:list")).code).toBe(0);
  },
  TIMEOUT,
);

test(
  "a database a newer release has migrated: asked to migrate, a command stops naming the migrations this code does not know; with MIGRATE_ON_START=false it runs on it",
  async () => {
    const database = await aDatabase(true);
    await sql`insert into kysely_migration (name, timestamp) values ('0099_from_the_future', now()::text)`.execute(database.db);
    const refused = await runCliHere({ DATABASE_URL: database.url }, "users:list");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The database is ahead of this code: it has run 1 migration(s) this code does not know (0099_from_the_future)");
    expect((await runCliHere({ DATABASE_URL: database.url }, "db:migrate")).stderr).toContain("ahead of this code");
    expect((await runCliHere({ DATABASE_URL: database.url, MIGRATE_ON_START: "false" }, "users:list")).code).toBe(0);
  },
  TIMEOUT,
);
