import {
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PGliteAdapter,
  PGliteDialect,
  type PGliteDialectConfig,
  type QueryCompiler,
  type TransactionSettings,
} from "kysely";

/** A database's connections now: checked out, asked for and not yet given, and the most there may be. */
export interface ConnectionStats {
  inUse: number;
  waiting: number;
  max: number;
}

/**
 * Kysely's one-at-a-time lock around a single connection, as it keeps one for PGlite, but counted:
 * whether the connection is held (from acquire to release: a query, or a whole transaction) and how
 * many wait for it. First come, first served; a release hands the connection to the next in line.
 */
class CountedSingleConnection implements Driver {
  #held = false;
  #line: Array<() => void> = [];

  constructor(private readonly inner: Driver) {}

  stats(): ConnectionStats {
    return { inUse: this.#held ? 1 : 0, waiting: this.#line.length, max: 1 };
  }

  init() {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((go) => this.#line.push(go));
    this.#held = true;
    try {
      return await this.inner.acquireConnection();
    } catch (error) {
      this.#handOver();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      this.#handOver();
    }
  }

  #handOver() {
    const next = this.#line.shift();
    if (next) next();
    else this.#held = false;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(connection);
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    await this.inner.savepoint?.(connection, name, compile);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }
  destroy() {
    return this.inner.destroy();
  }
}

/** Kysely's lock is off for this adapter: the counted one above takes its place. */
class CountedPGliteAdapter extends PGliteAdapter {
  override get supportsMultipleConnections() {
    return true;
  }
}

/** Kysely's PGlite dialect, with its one connection's use counted (the metrics' storefront_db_connections_*). */
export function countedPGliteDialect(config: PGliteDialectConfig): { dialect: Dialect; connections(): ConnectionStats } {
  const inner = new PGliteDialect(config);
  let driver: CountedSingleConnection | undefined;
  return {
    dialect: {
      createAdapter: () => new CountedPGliteAdapter(),
      createDriver: () => (driver = new CountedSingleConnection(inner.createDriver())),
      createQueryCompiler: () => inner.createQueryCompiler(),
      createIntrospector: (db) => inner.createIntrospector(db),
    },
    connections: () => driver?.stats() ?? { inUse: 0, waiting: 0, max: 1 },
  };
}
