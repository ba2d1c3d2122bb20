import type { Actor } from "../../domain/permissions.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderQueueFilter, QueuedOrder } from "../ports/orders.ts";

/** The back office's orders queue (GET /api/admin/orders): every customer's orders that match, newest first, one page. */
export async function listOrderQueue(deps: Pick<Deps, "uow">, actor: Actor, filter: OrderQueueFilter, page: PageRequest): Promise<Paged<QueuedOrder>> {
  requirePermission(actor, "orders:read");
  return deps.uow.read((db) => db.orders.queue(filter, page));
}
