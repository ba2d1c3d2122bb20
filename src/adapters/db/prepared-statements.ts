import type { PostgresClientConstructor, PostgresPool } from "kysely";
import type { Pool, PoolClient, QueryConfig } from "pg";
import { isReadOnly, isStalePlan } from "./sql-helpers.ts";

/** A connection made ready (its queries named), with the number of its session in the order they began. */
const PREPARED = Symbol("storefront.prepared");
/** Distinct SQL texts get a name up to this many; past it (a bug producing ad-hoc SQL) queries run unnamed. */
const MAX_STATEMENTS = 2_000;
/** How often, at most, a write refused for a read-only session retires the pool's sessions (see connect). */
const RETIRE_EVERY_MS = 2_000;

/**
 * Hands Kysely pooled clients whose parameterized queries run as named prepared statements, so
 * PostgreSQL parses and plans each distinct query once per connection instead of on every call
 * (as postgres.js does by default). Kysely builds SQL from a fixed set of shapes, with values
 * always sent as parameters, so the number of distinct texts stays small.
 */
export function withPreparedStatements(pool: Pool, onClientError: (error: Error) => void): PostgresPool {
  const numbers = new Map<string, number>();
  /**
   * Moved on when PostgreSQL refuses a statement prepared before the schema changed under it (a
   * column added to a table read whole, by a migration of the next release while this one still
   * serves): every statement then gets a new name, and so is prepared afresh on every connection.
   */
  let generation = 0;
  const nameOf = (text: string) => {
    let number = numbers.get(text);
    if (number === undefined && numbers.size < MAX_STATEMENTS) {
      number = numbers.size + 1;
      numbers.set(text, number);
    }
    return number === undefined ? undefined : `sf${generation}_${number}`;
  };

  // A connection lost while checked out (a database restart, a terminated backend) emits "error"
  // on its client, where the pool does not listen: unheard, it would take the process down. The
  // query in flight fails on its own, and the pool drops the client when it is released. The
  // listener goes on as the pool makes the client, before it hands it out: a backend terminated the
  // instant it was ready sends that news with its readiness, and the client reports it in the very
  // turn it is handed out, before whoever asked for it can listen.
  pool.on("connect", (client) => client.on("error", onClientError));

  function prepare(client: PoolClient & { [PREPARED]?: number }): PoolClient {
    if (client[PREPARED]) return client;
    const query = client.query.bind(client) as (config: QueryConfig | string, values?: unknown[]) => Promise<unknown>;
    const named = (text: string, values: unknown[]) => {
      const name = nameOf(text);
      return name ? query({ name, text, values }) : query(text, values);
    };
    const run = async (config: QueryConfig | string, values?: unknown[]) => {
      if (typeof config !== "string" || !Array.isArray(values) || values.length === 0) return query(config, values);
      const before = generation;
      try {
        return await named(config, values);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        if (generation === before) generation++;
        // Outside a transaction nothing ran: the statement goes again, prepared afresh. Inside one, the
        // transaction is spoiled, and the unit of work runs it again (isStalePlan, store.ts).
        if (client.getTransactionStatus() === "I") return named(config, values);
        throw error;
      }
    };
    client.query = (async (config: QueryConfig | string, values?: unknown[]) => {
      try {
        return await run(config, values);
      } catch (error) {
        if (isReadOnly(error)) refusedWrite();
        throw error;
      }
    }) as PoolClient["query"];
    client[PREPARED] = ++sessions;
    return client;
  }

  /**
   * A session keeps the database's `default_transaction_read_only` of when it began: one begun while
   * it was set (for maintenance) refuses writes for as long as it lives, and the pool, kept busy,
   * kept such sessions for good after the setting was reset (found by an attack). So when a write is
   * refused, the sessions begun before are closed as they are handed out or given back, and new ones
   * read the setting as it is then; at most once every RETIRE_EVERY_MS, so that a database that stays
   * read-only (or a standby, whose new sessions refuse writes too) costs the pool's sessions once
   * in that time, not one a request.
   */
  let sessions = 0;
  let retiredBefore = 0;
  let lastRetired = Number.NEGATIVE_INFINITY;
  function refusedWrite() {
    if (performance.now() - lastRetired < RETIRE_EVERY_MS) return;
    lastRetired = performance.now();
    retiredBefore = sessions + 1;
  }
  const retired = (client: PoolClient & { [PREPARED]?: number }) => (client[PREPARED] ?? 0) < retiredBefore;

  async function connect(): Promise<PoolClient> {
    for (;;) {
      const client = prepare(await pool.connect());
      if (retired(client)) {
        client.release(true);
        continue;
      }
      // pg's pool gives each checkout a release of its own: wrapped at every one.
      const release = client.release;
      client.release = ((destroy?: Error | boolean) => release(destroy || retired(client))) as PoolClient["release"];
      return client;
    }
  }

  return {
    // Kysely opens a control connection of this class to cancel queries; pg's Pool has it, untyped.
    Client: (pool as unknown as { Client: PostgresClientConstructor }).Client,
    options: pool.options,
    connect,
    end: () => pool.end(),
  };
}
