import { DomainError, unauthenticated } from "../../domain/errors.ts";
import type { OrderStatus, OrderView } from "../../domain/order.ts";
import { type Actor, can } from "../../domain/permissions.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderFilter } from "../ports/orders.ts";

/** The caller's own orders (GET /api/orders). */
export async function listOrders(deps: Pick<Deps, "uow">, actor: Actor, filter: Omit<OrderFilter, "userId">): Promise<{ orders: OrderView[]; total: number }> {
  if (!actor.userId) throw unauthenticated();
  const userId = actor.userId;
  return deps.uow.read((db) => db.orders.list({ ...filter, userId }));
}

/** How many orders one of everyOrder's reads brings. */
const EVERY_ORDER_BATCH = 100;

/**
 * Every customer's orders, of one status if given, newest first, for staff with orders:read (the
 * CLI's orders:list): batch by batch as the caller pulls them, holding nothing in between, however
 * many there are.
 */
export async function everyOrder(deps: Pick<Deps, "uow">, actor: Actor, status?: OrderStatus): Promise<AsyncGenerator<OrderView[]>> {
  requirePermission(actor, "orders:read");
  return deps.uow.read(async (db) => db.orders.everyOrder({ status }, EVERY_ORDER_BATCH));
}

/** One order: its owner's, or anyone's for a caller with orders:read. */
export async function getOrder(deps: Pick<Deps, "uow">, actor: Actor, id: string): Promise<OrderView> {
  const order = await deps.uow.read((db) => db.orders.findById(id));
  if (!order) throw new DomainError("order.not_found", "Order not found");
  if (order.userId !== actor.userId && !can(actor, "orders:read")) throw new DomainError("forbidden", "This order belongs to another user");
  return order;
}
