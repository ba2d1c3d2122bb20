import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { type CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import { Client, Pool } from "pg";
import { type Db, openDatabase } from "../../src/adapters/db/database.ts";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { withMigratedDatabase } from "./embedded-template.ts";
import { type OrderHistory, SEED_SOURCE, seedOrderHistory } from "./seed-orders.ts";

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

export async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  await connectOrStop(client);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const urlOf = (name: string) => {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * A database of the test's own. Migrated (the default), it is a copy of a template database that
 * this code's migrations made once: copying takes a few milliseconds of the server's time, where
 * running the migrations (eighteen then) took half a second of CPU for each of the suite's forty-odd
 * databases. `migrate: false` gives an empty one, for the tests of the migrations themselves. With
 * `history`, the copy holds that order history too (seedOrderHistory), seeded once on this server
 * for these migrations and this seed: 30,000 orders take several seconds of the machine's CPU.
 */
export async function createTestDatabase({ migrate = true, history }: { migrate?: boolean; history?: OrderHistory } = {}): Promise<TestDatabase> {
  // Best effort: a sweep that fails (the server busy) leaves the leftovers to a later run, and this process's tests to run.
  sweeping ??= sweepDeadRuns().catch(() => {});
  await sweeping;
  const name = `${OURS}${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const template = () => (history ? historyTemplate(history) : migrate ? migratedTemplate() : Promise.resolve(null));
  const create = async (from: string | null) => admin((c) => c.query(from ? `create database ${name} template ${from}` : `create database ${name}`));
  try {
    await create(await template());
  } catch (error) {
    // The template was dropped since this process last made or found it: by another checkout's run, whose code replaced it.
    if ((error as { code?: string }).code !== "3D000") throw error;
    templates.clear();
    await create(await template());
  }
  const url = urlOf(name);
  const { db } = openDatabase({ kind: "postgres", url });
  return {
    db,
    url,
    truncate: () => truncateAll(db),
    async drop() {
      await db.destroy();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * This machine's mark in its test databases' names, then the process's pid: a sweep drops only what
 * this machine's processes that no longer run left (a server several machines share sees pids that
 * are not its own). The machine is its host name and its pid namespace: containers given one host
 * name each count their pids apart, so one's pid says nothing of the other's processes.
 */
const OURS = `storefront_test_${createHash("sha256").update(`${hostname()} ${pidNamespace()}`).digest("hex").slice(0, 12)}_`;

function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    // No /proc (macOS): the host name alone.
    return "";
  }
}

let sweeping: Promise<void> | undefined;

/**
 * Drops the test databases of this machine's test processes that no longer run: a run killed
 * mid-way (Ctrl-C, a timeout) dropped none of its own. Run once by each test process, before its
 * first database; those of live processes (this run's others, another checkout's run) stay.
 */
export async function sweepDeadRuns(): Promise<void> {
  await admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>("select datname from pg_database where starts_with(datname, $1)", [OURS]);
    for (const { datname } of rows) {
      const pid = Number(datname.slice(OURS.length).split("_")[0]);
      if (!Number.isInteger(pid) || pid <= 0 || running(pid)) continue;
      // Best effort: one another process drops at the same moment is its to drop, or the next run's.
      await c.query(`drop database if exists ${datname} with (force)`).catch(() => {});
    }
  });
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as { code?: string }).code === "EPERM";
  }
}

const MIGRATIONS = join(import.meta.dir, "../../src/adapters/db/migrations");
/** Who makes a template: one test process at a time (a key of pg_advisory_lock's, this file's own). */
const TEMPLATE_LOCK = 7_250_431_118;
/** Moved on when the way a template is built changes (the steps here, not the migrations or the seed, which are hashed). */
const TEMPLATE_BUILD = 1;
const templates = new Map<string, Promise<string>>();

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  return hash.digest("hex");
}

interface TemplateSpec {
  name: string;
  /** Fills the new database, a copy of `from` or an empty one. */
  build: (db: Db) => Promise<unknown>;
  from?: string;
  /** LIKE patterns: the older templates this one replaces, dropped once it is made, but those of `current` (this code's others). */
  replaces: string;
  current: string;
}

/**
 * The template database `spec.name`, made if this server has none: built once, by one test process
 * at a time (under an advisory lock, looked for again once it is held). Made under another name and
 * renamed when whole, so a run killed while it builds leaves no half-made template behind a real
 * name. Once made, the templates it replaces are dropped where nothing uses them; another checkout
 * that still wants one makes it again (createTestDatabase).
 */
function cachedTemplate(spec: TemplateSpec): Promise<string> {
  const known = templates.get(spec.name);
  if (known) return known;
  const { name, build, from } = spec;
  const made = admin(async (c) => {
    const exists = async () => Boolean((await c.query("select 1 from pg_database where datname = $1", [name])).rowCount);
    if (await exists()) return name;
    await c.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      if (await exists()) return name;
      const building = `${name}_building`;
      await c.query(`drop database if exists ${building} with (force)`);
      await c.query(from ? `create database ${building} template ${from}` : `create database ${building}`);
      const { db } = openDatabase({ kind: "postgres", url: urlOf(building) });
      try {
        await build(db);
      } finally {
        await db.destroy();
      }
      // pg's pool.end() may resolve before the server has seen its connections close.
      await c.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [building]);
      await c.query(`alter database ${building} rename to ${name}`);
      const old = await c.query<{ datname: string }>("select datname from pg_database where datname like $1 and datname not like $2 and datname <> $3", [
        spec.replaces,
        spec.current,
        name,
      ]);
      for (const { datname } of old.rows) await c.query(`drop database if exists ${datname}`).catch(() => {}); // one being copied stays
      return name;
    } finally {
      await c.query("select pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
  templates.set(name, made);
  // A failed build is not kept: the next file tries again.
  made.catch(() => templates.delete(name));
  return made;
}

/** The migrated template: this code's migrations, run once on this server, named by their hash (as every checkout since they were hashed names it). */
function migratedTemplate(): Promise<string> {
  const name = `storefront_template_${migrationsHash().slice(0, 16)}`;
  return cachedTemplate({ name, build: migrateToLatest, replaces: "storefront\\_template\\_%", current: name });
}

/**
 * The migrated template with an order history in it (seedOrderHistory), seeded once on this server:
 * named by this code (its migrations, the seed's source) and then by the history asked for, so that
 * two histories of the same code stand side by side, and a new code's replaces the old code's.
 */
async function historyTemplate(history: OrderHistory): Promise<string> {
  const from = await migratedTemplate();
  const code = sha256(`${TEMPLATE_BUILD} ${migrationsHash()} ${readFileSync(SEED_SOURCE, "utf8")}`).slice(0, 8);
  const asked = sha256(`${history.orders} ${history.customers} ${history.until?.toISOString() ?? "-"}`).slice(0, 8);
  const seeded = async (db: Db) => {
    await seedOrderHistory(db, history);
    await sql`vacuum analyze`.execute(db);
  };
  return cachedTemplate({
    name: `storefront_history_${code}_${asked}`,
    build: seeded,
    from,
    replaces: "storefront\\_history\\_%",
    current: `storefront\\_history\\_${code}\\_%`,
  });
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

/**
 * A Kysely of its own on the database (a pool of `connections`) that records each statement it runs
 * in `ran`, as the repositories compile them: what genericPlanOf, or an EXPLAIN, reads back.
 */
export function recordingDb(database: TestDatabase, connections = 1): { db: Kysely<Database>; ran: CompiledQuery[] } {
  const ran: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: poolOn(database, connections) }),
    log: (event) => void (event.level === "query" && ran.push(event.query)),
  });
  return { db, ran };
}

const tablesOf = new WeakMap<Db, Promise<string[]>>();

/** Tables whose rows the migrations write and the shop never deletes: part of the schema, not data. */
const SCHEMA_ROWS = new Set(["sales_periods_generation"]);

/**
 * Empties every table between tests, but the rows of the schema itself (SCHEMA_ROWS). DELETE with the foreign keys' triggers off for the session
 * (replica mode) is several times faster than TRUNCATE on tables of a few rows, which makes new
 * files for each; the table list is read once per database.
 */
export async function truncateAll(db: Db): Promise<void> {
  let tables = tablesOf.get(db);
  if (!tables)
    tablesOf.set(db, (tables = db.introspection.getTables().then((found) => found.filter((t) => !SCHEMA_ROWS.has(t.name)).map((t) => `"${t.name}"`))));
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

/**
 * The plan PostgreSQL makes once for every value of the parameters of the statement `run` sent last
 * (of those `which` picks, when it sends several; `ran` being what `db` logged). The shop's statements run as named prepared statements
 * (prepared-statements.ts), and after five runs PostgreSQL keeps one plan for all values when it looks
 * no dearer than the ones made for each: such a plan cannot read a partial index whose condition a
 * parameter would have to meet.
 */
export async function genericPlanOf<T>(
  db: Kysely<T>,
  ran: CompiledQuery[],
  run: () => Promise<unknown>,
  which: (query: CompiledQuery) => boolean = () => true,
): Promise<string> {
  ran.length = 0;
  await run();
  const query = ran.findLast(which)!;
  return db.connection().execute(async (connection) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
    try {
      await sql.raw(`prepare generic_plan as ${query.sql}`).execute(connection);
      try {
        // EXECUTE takes its values written out, not as parameters of its own.
        const text = (value: unknown): string =>
          value instanceof Date ? value.toISOString() : Array.isArray(value) ? `{${value.map((v) => `"${text(v)}"`).join(",")}}` : String(value);
        const literal = (value: unknown) => (typeof value === "number" ? String(value) : `'${text(value).replaceAll("'", "''")}'`);
        const values = query.parameters.map(literal).join(", ");
        const { rows } = await sql<{ "QUERY PLAN": string }>`explain execute generic_plan${sql.raw(values ? `(${values})` : "")}`.execute(connection);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      } finally {
        await sql`deallocate generic_plan`.execute(connection);
      }
    } finally {
      // The connection goes back to the pool as it came.
      await sql`reset plan_cache_mode`.execute(connection);
    }
  });
}
