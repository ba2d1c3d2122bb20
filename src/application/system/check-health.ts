import type { Deps } from "../ports/index.ts";
import type { RateLimitStoreState } from "../ports/system.ts";
import { messageOf } from "../../domain/errors.ts";

export type Health = { status: "ok" } | { status: "unavailable"; reason: string };

export async function checkHealth(deps: Pick<Deps, "database">): Promise<Health> {
  try {
    await deps.database.ping();
    return { status: "ok" };
  } catch (error) {
    return { status: "unavailable", reason: messageOf(error) };
  }
}

export interface OutboxBacklog {
  pending: number;
  failed: number;
}

/** What GET /api/health/ready reports (decisions §14). */
export interface Readiness {
  /** False only when the database did not answer or is behind this code's migrations. */
  ready: boolean;
  database: "ok" | "unavailable";
  /** Null when the database did not answer. */
  migrations: { current: boolean; pending: string[] } | null;
  rateLimitStore: RateLimitStoreState;
  /** Null when it could not be read. */
  outbox: OutboxBacklog | null;
  /** Why it is not ready, for the log (a database's error is never told to the caller). */
  reason: string | null;
}

/** The mail waiting to be sent, and given up on. */
export function outboxBacklog(deps: Pick<Deps, "uow">): Promise<OutboxBacklog> {
  return deps.uow.read((db) => db.outbox.backlog());
}

/**
 * Readiness (decisions §14): liveness's database round trip, and the schema current with this
 * code; the rate-limit store and the outbox reported, never a reason to refuse traffic (the limits
 * fall back to memory, and mail waits in the outbox).
 */
export async function checkReadiness(deps: Pick<Deps, "database" | "uow" | "rateLimits">): Promise<Readiness> {
  const rateLimitStore = deps.rateLimits.state();
  let pending: string[];
  try {
    await deps.database.ping();
    pending = await deps.database.pendingMigrations();
  } catch (error) {
    return { ready: false, database: "unavailable", migrations: null, rateLimitStore, outbox: null, reason: messageOf(error) };
  }
  const outbox = await outboxBacklog(deps).catch(() => null);
  const behind = pending.length > 0 ? `the database is behind this code by ${pending.length} migration(s): ${pending.join(", ")}` : null;
  return { ready: !behind, database: "ok", migrations: { current: !behind, pending }, rateLimitStore, outbox, reason: behind };
}
