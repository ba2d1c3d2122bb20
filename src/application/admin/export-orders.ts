import type { RequestOrigin } from "../../domain/audit.ts";
import type { Actor } from "../../domain/permissions.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { ExportedLine, OrderQueueFilter } from "../ports/orders.ts";

/**
 * Decisions §12: an export is read in keyset batches of at most 1,000 lines. Half of that: a batch
 * and the one read ahead of it are what an export holds, and at 500 a server exporting while it
 * serves the catalog grew 9 to 26 MB instead of 24 to 34 (bench/README.md), for some 8 % of the
 * speed of an export alone.
 */
export const EXPORT_BATCH_LINES = 500;

export interface OrderExport {
  /** When it began: its audit entry's time, and the date in its file name. */
  startedAt: Date;
  /** The lines, batch by batch: each batch is read when the caller asks for it. */
  lines: AsyncGenerator<ExportedLine[]>;
}

/** The filters as the audit keeps them: only those given, times in ISO 8601. */
function recorded(filter: OrderQueueFilter): Record<string, unknown> {
  const { from, to, ...rest } = filter;
  return Object.fromEntries(Object.entries({ ...rest, from: from?.toISOString(), to: to?.toISOString() }).filter(([, value]) => value !== undefined));
}

/**
 * The lines of every order the filter matches, for a CSV (GET /api/admin/orders/export, the CLI's
 * orders:export). One audit entry `order.export` says who exported with which filters, written
 * before anything is read; the lines are then read batch by batch as the caller pulls them, holding
 * nothing in between, however many there are.
 */
export async function exportOrders(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  actor: Actor,
  filter: OrderQueueFilter,
  origin: RequestOrigin,
): Promise<OrderExport> {
  requirePermission(actor, "orders:export");
  const startedAt = deps.clock.now();
  await deps.uow.transaction((tx) =>
    recordAudit(tx, deps, {
      userId: actor.userId,
      action: "order.export",
      entityType: "order",
      entityId: null,
      changes: { by: actor.role, filters: recorded(filter) },
      origin,
    }),
  );
  return { startedAt, lines: await deps.uow.read(async (db) => db.orders.exportLines(filter, EXPORT_BATCH_LINES)) };
}
