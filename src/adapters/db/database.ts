import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import { Pool } from "pg";
import type { DatabaseTarget } from "../../config.ts";
import type { Logger } from "../../application/ports/system.ts";
import { silentLogger } from "../log.ts";
import { withPreparedStatements } from "./prepared-statements.ts";
import type { Database } from "./tables.ts";

export type Db = Kysely<Database>;

export interface OpenDatabase {
  db: Db;
  /** Human-readable, for the start-up log. Never contains a password. */
  description: string;
  /** True when this process owns a fresh embedded database (decides the automatic demo seed). */
  embedded: boolean;
}

export function openDatabase(target: DatabaseTarget, logger: Logger = silentLogger): OpenDatabase {
  if (target.kind === "postgres") {
    const url = new URL(target.url);
    const pool = new Pool({
      connectionString: target.url,
      // More connections than a few per core only adds contention inside PostgreSQL.
      max: target.poolMax ?? 10,
      // pg waits forever for a free connection by default; fail loudly instead.
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that dies (database restart, network) must not take the process down with it.
    pool.on("error", (error) => logger.warn("database.idle_connection_lost", { message: error.message }));
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) }),
      description: `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`,
      embedded: false,
    };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  const options = { extensions: { pg_trgm } };
  const pglite = target.dataDir ? new PGlite(`${target.dataDir}/pglite`, options) : new PGlite(options);
  return {
    db: new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) }),
    description: target.dataDir ? `embedded PGlite in ${target.dataDir}/pglite` : "embedded PGlite in memory",
    embedded: true,
  };
}
