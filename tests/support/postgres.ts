import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { Client, Pool } from "pg";
import { type Db, openDatabase } from "../../src/adapters/db/database.ts";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { withMigratedDatabase } from "./embedded-template.ts";

/** The server every PostgreSQL-backed test talks to; each test file gets a database of its own on it. */
export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/test";

export interface TestDatabase {
  db: Db;
  url: string;
  /** Empties every table, keeping the schema. */
  truncate(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Every PostgreSQL-backed test comes through here first. Without the server the run stops at once
 * with one line saying what to start, instead of a screen of ECONNREFUSED; a run of tests that do
 * not need it never gets here.
 */
async function connectOrStop(client: Client): Promise<void> {
  try {
    await client.connect();
  } catch (error) {
    const { host } = new URL(ADMIN_DATABASE_URL);
    const reason = (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
    console.error(
      `The tests need PostgreSQL at ${host} (TEST_DATABASE_URL), which does not answer (${reason}): start it with ` +
        "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or run .ci/run, which starts it.",
    );
    process.exit(1);
  }
}

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  await connectOrStop(client);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase({ migrate = true } = {}): Promise<TestDatabase> {
  const name = `storefront_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  const { db } = openDatabase({ kind: "postgres", url: url.toString() });
  if (migrate) await migrateToLatest(db);
  return {
    db,
    url: url.toString(),
    truncate: () => truncateAll(db),
    async drop() {
      await db.destroy();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** A database of its own holding the demo catalog, seeded by the CLI's db:seed as an operator would (run in this process). */
export async function createSeededTestDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  // Loaded here only: the CLI's modules are no business of the other files that need a database.
  const { runCliHere } = await import("./cli.ts");
  const seed = await runCliHere({ DATABASE_URL: database.url }, "db:seed");
  if (seed.code !== 0) throw new Error(`db:seed failed: ${seed.stderr}`);
  return database;
}

/**
 * A pg pool of the test's own on a test database (for a Kysely that logs its queries). pg's pool
 * lets `end()` resolve before its connections have closed, so the database's drop (with force) may
 * terminate one still closing: that one error is expected, and heard; any other is thrown.
 */
export function poolOn(database: TestDatabase, max: number): Pool {
  const pool = new Pool({ connectionString: database.url, max });
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  return pool;
}

const tablesOf = new WeakMap<Db, Promise<string[]>>();

/**
 * Empties every table between tests. DELETE with the foreign keys' triggers off for the session
 * (replica mode) is several times faster than TRUNCATE on tables of a few rows, which makes new
 * files for each; the table list is read once per database.
 */
export async function truncateAll(db: Db): Promise<void> {
  let tables = tablesOf.get(db);
  if (!tables) tablesOf.set(db, (tables = db.introspection.getTables().then((found) => found.map((t) => `"${t.name}"`))));
  const names = await tables;
  if (names.length === 0) return;
  await db.connection().execute(async (connection) => {
    await sql.raw("set session_replication_role = replica").execute(connection);
    try {
      await sql.raw(`do $$ begin ${names.map((name) => `delete from ${name};`).join(" ")} end $$`).execute(connection);
    } finally {
      await sql.raw("set session_replication_role = default").execute(connection);
    }
  });
}

/**
 * An embedded PGlite database with the schema applied: a copy of the one the CLI's db:migrate made
 * (tests/support/embedded-template.ts), opened as the shop opens its DATA_DIR. Making one in memory
 * and migrating it took several seconds of CPU each time; the migrations on PGlite are proven by
 * the first start in tests/process/server.test.ts.
 */
export async function createPgliteDatabase(): Promise<{ db: Db; truncate(): Promise<void>; close(): Promise<void> }> {
  const dir = withMigratedDatabase(mkdtempSync(join(tmpdir(), "storefront-pglite-")));
  const { db, close } = openDatabase({ kind: "pglite", directory: join(dir, "pglite"), label: dir, privateDir: null });
  return {
    db,
    truncate: () => truncateAll(db),
    async close() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
