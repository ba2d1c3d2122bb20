import type { PostgresClientConstructor, PostgresPool } from "kysely";
import type { Pool, PoolClient, QueryConfig } from "pg";

const PREPARED = Symbol("storefront.prepared");
/** Distinct SQL texts get a name up to this many; past it (a bug producing ad-hoc SQL) queries run unnamed. */
const MAX_STATEMENTS = 2_000;

/**
 * Hands Kysely pooled clients whose parameterized queries run as named prepared statements, so
 * PostgreSQL parses and plans each distinct query once per connection instead of on every call
 * (as postgres.js does by default). Kysely builds SQL from a fixed set of shapes, with values
 * always sent as parameters, so the number of distinct texts stays small.
 */
export function withPreparedStatements(pool: Pool, onClientError: (error: Error) => void): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_STATEMENTS) {
      name = `sf${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };

  // A connection lost while checked out (a database restart, a terminated backend) emits "error"
  // on its client, where the pool does not listen: unheard, it would take the process down. The
  // query in flight fails on its own, and the pool drops the client when it is released. The
  // listener goes on as the pool makes the client, before it hands it out: a backend terminated the
  // instant it was ready sends that news with its readiness, and the client reports it in the very
  // turn it is handed out, before whoever asked for it can listen.
  pool.on("connect", (client) => client.on("error", onClientError));

  function prepare(client: PoolClient & { [PREPARED]?: true }): PoolClient {
    if (client[PREPARED]) return client;
    const query = client.query.bind(client) as (config: QueryConfig | string, values?: unknown[]) => Promise<unknown>;
    client.query = ((config: QueryConfig | string, values?: unknown[]) => {
      const name = typeof config === "string" && Array.isArray(values) && values.length > 0 ? nameOf(config) : undefined;
      return name ? query({ name, text: config as string, values }) : query(config, values);
    }) as PoolClient["query"];
    client[PREPARED] = true;
    return client;
  }

  return {
    // Kysely opens a control connection of this class to cancel queries; pg's Pool has it, untyped.
    Client: (pool as unknown as { Client: PostgresClientConstructor }).Client,
    options: pool.options,
    connect: async () => prepare(await pool.connect()),
    end: () => pool.end(),
  };
}
