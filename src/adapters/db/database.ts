import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Kysely, type LogEvent, PostgresDialect } from "kysely";
import { Pool } from "pg";
import type { Logger } from "../../application/ports/system.ts";
import { messageOf } from "../../domain/errors.ts";
import { silentLogger } from "../log.ts";
import { ensurePrivateDir } from "../private-dir.ts";
import { type ConnectionStats, countedPGliteDialect } from "./counted-connection.ts";
import { lockEmbeddedDatabase } from "./embedded-lock.ts";
import { withPreparedStatements } from "./prepared-statements.ts";
import type { Database } from "./tables.ts";

export type Db = Kysely<Database>;
export type { ConnectionStats };

export type DatabaseTarget =
  /** `options`: the operator's session settings (PGOPTIONS), after the shop's own, so they win. */
  | { kind: "postgres"; url: string; poolMax?: number; options?: string }
  /**
   * `directory` null: in memory. `label` names it for people (DATA_DIR, or the URL). `privateDir`:
   * DATA_DIR, when the database lives in it (kept 0700); null for a directory named by the URL.
   */
  | { kind: "pglite"; directory: string | null; label: string; privateDir: string | null };

export interface OpenDatabase {
  db: Db;
  connections(): ConnectionStats;
  /** Human-readable, for the start-up log. Never contains a password. */
  description: string;
  /** True when this process owns a fresh embedded database (decides the automatic demo seed). */
  embedded: boolean;
  /** Closes the connections (and gives up the embedded database's lock). */
  close(): Promise<void>;
}

/** PGlite is loaded only for an embedded database (some 10 MB a process on PostgreSQL would carry for nothing). */
async function embedded(directory: string | null) {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite/contrib/pg_trgm")]);
  const options = { extensions: { pg_trgm } };
  const pglite = directory ? new PGlite(directory, options) : new PGlite(options);
  await pglite.waitReady.catch((error: unknown) => {
    throw new Error(`The embedded database${directory ? ` in ${directory}` : ""} could not be opened: ${whyNotOpened(error)}`, { cause: error });
  });
  if (directory) leaveOpenedMark(directory);
  return pglite;
}

/**
 * The mark, left once; at best effort, as the database is open and its opening must stand: a mark
 * that could not be written (a full disk) failed every statement, each opening PGlite again on the
 * same files (found by a review). Without it, a later loss of PG_VERSION is not told from a first start.
 */
function leaveOpenedMark(directory: string): void {
  try {
    if (!existsSync(join(directory, OPENED_MARK))) writeFileSync(join(directory, OPENED_MARK), OPENED_MARK_TEXT, { mode: 0o600 });
  } catch {
    // Written at the next start.
  }
}

/**
 * Left in the database's directory once the shop has opened it whole: a directory with it and
 * without PG_VERSION is a database that lost its files, not a first start cut short (refuseDamaged).
 */
const OPENED_MARK = "storefront-opened";
const OPENED_MARK_TEXT =
  "This embedded database was opened whole by the shop. Without PG_VERSION beside it, the shop refuses to start on it (docs/configuration.md).\n";

/**
 * What PGlite's failure to open says, for the operator: its file system's errors are WASI numbers
 * (a first start on a full disk said "[object Object]": found by an attack), and a file it cannot
 * make sense of stops it with a bare "Aborted()".
 */
function whyNotOpened(error: unknown): string {
  const errno = (error as { errno?: unknown } | null)?.errno;
  if (errno === WASI_ENOSPC) return "no space left on device";
  const said = messageOf(error);
  return said.startsWith("Aborted(") ? `${said} (its files may be damaged: see the runbook in docs/operations.md)` : said;
}
/** WASI's number for "no space left on device", as PGlite's file system gives it. */
const WASI_ENOSPC = 51;

/**
 * How long a statement of the shop's waits for a row or table lock another session holds. Without a
 * limit, a transaction left open (in psql, by a stuck job) on a product's row kept every checkout of
 * it waiting, each holding one of the pool's connections: with the pool taken, every route of the
 * instance answered 503, browsing too, until the transaction ended (found by trying it). The shop's
 * own waits are milliseconds (a checkout of a popular product queues on its row for the checkouts
 * ahead of it); a statement that waits longer is cancelled (databaseBusy, 503 with Retry-After), and
 * its transaction undone. Well under the pool's 5 s patience (connectionTimeoutMillis below): with
 * the pool taken by such waits, a request waiting for a connection gets one when the first of them
 * gives up (at 5 s, the two ran out together, and browsing was a 503 now and then: found by an
 * attack). Migrations have the same limit on each of their statements, so a migration that would
 * queue behind a long transaction (and every request behind it) gives up instead, changing nothing,
 * to be run again; but an instance starting while another migrates waits for it, as Kysely's
 * migrator waits up to an hour for its own lock.
 */
export const LOCK_TIMEOUT = "2s";

/**
 * Settings of every session the shop opens on PostgreSQL: a lock waited on LOCK_TIMEOUT at most, no
 * parallel workers and no JIT. No parallel workers: the shop's statements are short, and its longest
 * (the back office's unfiltered count, the sales report) read a few hundred thousand rows, where
 * starting workers costs more than they save and takes cores from the other sessions. Measured on
 * two cores with 200,000 orders, two staff counting the whole queue at once: 112 ms a count with
 * the server's default of two workers, 12.8 ms without (each worker is a new process, which pays
 * again for every page of shared memory it touches). No JIT compilation either: PostgreSQL
 * compiles a statement whose estimated cost passes jit_above_cost, and a plan kept for a prepared
 * statement can estimate millions of rows where it reads a few thousand. The sales report's best
 * sellers over a year of kept days (6,600 rows read, 5 ms) took 280 to 440 ms, nearly all of it
 * compiling. The operator's own (an `options` parameter in DATABASE_URL, then PGOPTIONS) come after,
 * so they win. What the code relies on (REQUIRED_SETTINGS) comes last.
 */
const sessionOptions = (...operators: Array<string | null | undefined>) =>
  [`-c max_parallel_workers_per_gather=0 -c jit=off -c lock_timeout=${LOCK_TIMEOUT}`, ...operators, REQUIRED_SETTINGS].filter(Boolean).join(" ");

/**
 * DATABASE_URL without its `options` parameter, and that parameter: pg lets the URL's replace the
 * pool's own, so a URL that named any (as some hosts' do) sent none of the shop's settings, and a
 * database's DateStyle made every timestamp null again (found by an attack). Sent with them instead.
 */
function withoutOptions(databaseUrl: string): { url: string; options: string | null } {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get("options");
  // Untouched without one: written out again, a URL may come out spelled otherwise.
  if (options === null) return { url: databaseUrl, options };
  url.searchParams.delete("options");
  return { url: url.toString(), options };
}

/**
 * What the shop's code takes for granted of a session, set after the operator's so that nothing (a
 * PGOPTIONS, or a setting of the database's or the role's: `ALTER DATABASE … SET`) changes it. ISO
 * dates: pg reads no other style, and under `SQL, DMY` read every timestamp as null, so each signed
 * in request was a 401 and the catalog a 500. Read committed: the shop's locking is written for it
 * (each statement sees what committed before it began), and under repeatable read or serializable
 * checkouts at once failed with serialization errors (both found by an attack). Nulls in arrays: pg
 * writes an array parameter as text, a null as `NULL`, which `array_nulls = off` reads as the word
 * (or refuses, in an array of numbers), so the demo orders' seeding failed.
 */
const REQUIRED_SETTINGS = "-c DateStyle=ISO -c IntervalStyle=postgres -c default_transaction_isolation=read\\ committed -c array_nulls=on";

/**
 * The lock file of an embedded database: beside its directory, named after the directory's one
 * true name, so every spelling of it (a trailing slash, `..`, a symbolic link to it) finds the same
 * lock. A directory not made yet is named through its parent, which is.
 */
export function embeddedLockFile(directory: string): string {
  const absolute = resolve(directory);
  try {
    return `${realpathSync(absolute)}.lock`;
  } catch {
    return `${join(realpathSync(dirname(absolute)), basename(absolute))}.lock`;
  }
}

/**
 * PGlite takes a directory without PG_VERSION for one to make a database in, and runs initdb over
 * what is there: a database that lost that one file started as a new, empty shop, its orders gone
 * (found by an attack). One the shop has opened whole before (its mark is there) is refused instead.
 * A first start cut short, before the database was whole, is made again, as before: initdb writes
 * global/pg_control some 50 ms before PG_VERSION, so that file could not tell the two apart (found
 * by an attack on the first version of this check).
 */
function refuseDamaged(directory: string, label: string): void {
  if (existsSync(join(directory, "PG_VERSION")) || !existsSync(join(directory, OPENED_MARK))) return;
  throw new Error(
    `${label} holds a database without its PG_VERSION file (${join(directory, "PG_VERSION")}): it is damaged, and starting would make a new, empty database over it. Restore the directory from a backup, or put back PG_VERSION (copy it from another embedded database of this release); to start a new shop, move the directory away`,
  );
}

/** `onStatement`: told of every statement once it has run, with its time (tracing's statement spans). */
export function openDatabase(target: DatabaseTarget, logger: Logger = silentLogger, onStatement?: (event: LogEvent) => void): OpenDatabase {
  if (target.kind === "postgres") {
    const url = new URL(target.url);
    const fromUrl = withoutOptions(target.url);
    const pool = new Pool({
      connectionString: fromUrl.url,
      // More connections than a few per core only adds contention inside PostgreSQL.
      max: target.poolMax ?? 10,
      // pg waits forever for a free connection by default; fail loudly instead.
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      options: sessionOptions(fromUrl.options, target.options),
    });
    // An idle connection that dies (database restart, network) must not take the process down with it.
    pool.on("error", (error) => logger.warn("database.idle_connection_lost", { message: error.message }));
    const lost = (error: Error) => logger.warn("database.connection_lost", { error: error.message });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool, lost) }), log: onStatement });
    return {
      db,
      connections: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
      description: `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`,
      embedded: false,
      close: () => db.destroy(),
    };
  }
  if (!target.directory) {
    const { dialect, connections } = countedPGliteDialect({ pglite: () => embedded(null) });
    const db = new Kysely<Database>({ dialect, log: onStatement });
    return { db, connections, description: "embedded PGlite in memory", embedded: true, close: () => db.destroy() };
  }
  // Decisions §10: the data directory is its owner's alone (0700), and one process's at a time.
  if (target.privateDir) ensurePrivateDir(target.privateDir, logger);
  const directory = target.directory;
  // Made before it is locked, as the lock is on the directory too.
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const lock = lockEmbeddedDatabase(embeddedLockFile(directory), target.label, directory);
  if (!lock.directoryLocked)
    logger.warn("database.directory_not_locked", {
      directory,
      reason: "its file system cannot lock a directory (NFS, say): only the lock file beside it keeps out a second process",
    });
  try {
    refuseDamaged(directory, target.label);
  } catch (error) {
    lock.release();
    throw error;
  }
  const { dialect, connections } = countedPGliteDialect({ pglite: () => embedded(directory) });
  const db = new Kysely<Database>({ dialect, log: onStatement });
  return {
    db,
    connections,
    description: `embedded PGlite in ${target.directory}`,
    embedded: true,
    async close() {
      await db.destroy();
      lock.release();
    },
  };
}
