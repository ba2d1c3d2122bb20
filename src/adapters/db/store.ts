import { sql } from "kysely";
import type { Repositories, UnitOfWork } from "../../application/ports/index.ts";
import type { DatabaseProbe } from "../../application/ports/system.ts";
import { unauthenticated, databaseUnavailable } from "../../domain/errors.ts";
import { refuseInsideTransaction, runAsTransaction } from "../transaction-scope.ts";
import { within } from "../within.ts";
import { asDatabaseRefusal, isConnectionLost, isDeadlock, isRefusedWhole, isStalePlan, referencesMissingUser } from "./sql-helpers.ts";
import { createPgAuditLog } from "./audit-log.ts";
import { createPgCartRepository } from "./cart-repository.ts";
import type { Db } from "./database.ts";
import { pendingMigrations } from "./migrate.ts";
import { createPgIdempotencyKeys } from "./idempotency-keys.ts";
import { createPgLocationRepository } from "./location-repository.ts";
import { createPgMailOutbox } from "./mail-outbox-repository.ts";
import { createPgOrderRepository } from "./order-repository.ts";
import { createPgPermissionRepository } from "./permission-repository.ts";
import { createPgProductRepository } from "./product-repository.ts";
import { createPgRefundRepository } from "./refund-repository.ts";
import { createPgSalesRepository } from "./sales-repository.ts";
import { createPgSessionRepository } from "./session-repository.ts";
import { createPgSuppressionList } from "./suppression-list.ts";
import { createPgUserRepository } from "./user-repository.ts";
import { createPgWebhookEventLog } from "./webhook-event-log.ts";

const DEADLOCK_ATTEMPTS = 3;
/** Runs of a transaction whose connection was lost before it asked to commit (a terminated backend). */
const RECONNECT_ATTEMPTS = 3;
/** Runs of a transaction refused a statement prepared before the schema changed: the second prepares it afresh. */
const STALE_PLAN_ATTEMPTS = 2;

/** Repositories bound to one handle: the pool, or a transaction. */
export function createPgRepositories(db: Db): Repositories {
  return {
    products: createPgProductRepository(db),
    carts: createPgCartRepository(db),
    orders: createPgOrderRepository(db),
    locations: createPgLocationRepository(db),
    users: createPgUserRepository(db),
    sessions: createPgSessionRepository(db),
    permissions: createPgPermissionRepository(db),
    audit: createPgAuditLog(db),
    outbox: createPgMailOutbox(db),
    suppressions: createPgSuppressionList(db),
    webhookEvents: createPgWebhookEventLog(db),
    idempotency: createPgIdempotencyKeys(db),
    refunds: createPgRefundRepository(db),
    sales: createPgSalesRepository(db),
  };
}

export function createPgUnitOfWork(db: Db): UnitOfWork {
  const pooled = createPgRepositories(db);
  return {
    async transaction(work) {
      refuseInsideTransaction("transaction");
      for (let attempt = 1, stalePlans = 0; ; attempt++) {
        let workDone = false;
        try {
          return await db.transaction().execute((trx) =>
            runAsTransaction(async () => {
              const result = await work(createPgRepositories(trx));
              workDone = true;
              return result;
            }),
          );
        } catch (error) {
          // PostgreSQL gave this transaction up to break a deadlock: nothing of it landed, so it is run
          // again. Work writes to the database only (the processor is called between transactions,
          // never inside one), so a rerun repeats nothing outside.
          if (isDeadlock(error) && attempt < DEADLOCK_ATTEMPTS) continue;
          // A statement prepared before the schema changed under it (a migration of the next release
          // while this one serves): nothing of it landed, and the statements are now prepared afresh.
          if (isStalePlan(error) && ++stalePlans < STALE_PLAN_ATTEMPTS) continue;
          // A lock held elsewhere past lock_timeout (database.ts), a statement cancelled, the disk full,
          // writes refused: nothing of it landed, and running it again at once would only meet the same
          // refusal; the caller is told to try again.
          // A deadlock still, after its reruns (the same rows fought over without end): as busy, for the same reply.
          if (isRefusedWhole(error) || isDeadlock(error)) throw asDatabaseRefusal(error);
          if (isConnectionLost(error)) {
            // Lost before the commit was asked for (its backend terminated, the server restarted):
            // nothing of it landed, so it is run again on another connection, as for a deadlock. Lost
            // during the commit, it may have landed or not: the caller is told to try again, and
            // checkout and payment are safe to repeat with their Idempotency-Key.
            if (!workDone && attempt < RECONNECT_ATTEMPTS) continue;
            throw databaseUnavailable(error);
          }
          // The caller's account was deleted after its session was checked (the check is cached for
          // up to 30 s): whatever it wrote for that account is refused, and it is a caller without a session.
          if (referencesMissingUser(error)) throw unauthenticated();
          throw error;
        }
      }
    },
    async read(work) {
      refuseInsideTransaction("read");
      try {
        return await work(pooled);
      } catch (error) {
        throw asDatabaseRefusal(error);
      }
    },
    async write(work) {
      refuseInsideTransaction("write");
      try {
        return await work(pooled);
      } catch (error) {
        // One statement: lost, it may have landed or not, and the caller is told to try again.
        throw asDatabaseRefusal(error);
      }
    },
  };
}

/**
 * How long health, readiness and a metrics scrape wait for PostgreSQL. One that stops answering
 * without refusing (frozen, or cut off by the network) would otherwise hold each probe until the
 * HTTP idle timeout cut it, with no answer: the doc's 503 never came (found by an audit).
 */
export const PROBE_WAIT_MS = 2_000;

/**
 * `waitMs`: how long to wait for an answer (PROBE_WAIT_MS on PostgreSQL); null, for as long as it
 * takes: the embedded database is this process's own, one statement at a time, where a probe
 * queued behind a long report is no outage and must not read as one.
 */
export function createPgProbe(db: Db, waitMs: number | null): DatabaseProbe {
  const answered = <T>(work: Promise<T>) => (waitMs === null ? work : within(work, waitMs));
  return {
    async ping() {
      await answered(sql`select 1`.execute(db));
    },
    pendingMigrations: () => answered(pendingMigrations(db)),
  };
}
