import { DomainError } from "../../domain/errors.ts";
import type { OrderView } from "../../domain/order.ts";
import { type Actor, can } from "../../domain/permissions.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderFilter } from "../ports/orders.ts";

/** The caller's own orders (GET /api/orders), or with `everyone` every user's, for staff with orders:read (the CLI). */
export async function listOrders(
  deps: Pick<Deps, "uow">,
  actor: Actor,
  filter: Omit<OrderFilter, "userId">,
  everyone = false,
): Promise<{ orders: OrderView[]; total: number }> {
  if (everyone) requirePermission(actor, "orders:read");
  else if (!actor.userId) throw new DomainError("auth.unauthenticated", "Unauthorized - authentication required");
  return deps.uow.read((db) => db.orders.list(everyone ? filter : { ...filter, userId: actor.userId! }));
}

/** One order: its owner's, or anyone's for a caller with orders:read. */
export async function getOrder(deps: Pick<Deps, "uow">, actor: Actor, id: string): Promise<OrderView> {
  const order = await deps.uow.read((db) => db.orders.findById(id));
  if (!order) throw new DomainError("order.not_found", "Order not found");
  if (order.userId !== actor.userId && !can(actor, "orders:read")) throw new DomainError("forbidden", "This order belongs to another user");
  return order;
}
