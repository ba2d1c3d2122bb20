import type { AuditEntry } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import type { RefundRecord } from "../../domain/refund.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { QueuedOrder } from "../ports/orders.ts";

/** What staff see of one order: the order with its customer, the refunds owed or made for it, and its history. */
export interface OrderDetail {
  order: QueuedOrder;
  /** Due or made, oldest first. */
  refunds: RefundRecord[];
  /** The audit entries about it (order, payment and webhook actions), oldest first. */
  history: AuditEntry[];
}

const HISTORY_ACTIONS = /^(order|payment|webhook)\./;

/** One order for the back office (GET /api/admin/orders/:id). */
export async function getOrderDetail(deps: Pick<Deps, "uow">, actor: Actor, id: string): Promise<OrderDetail> {
  requirePermission(actor, "orders:read");
  return deps.uow.read(async (db) => {
    const order = await db.orders.findById(id);
    if (!order) throw new DomainError("order.not_found", "Order not found");
    const [customer, refunds, entries] = await Promise.all([
      db.users.findById(order.userId),
      db.refunds.listOfOrder(id),
      db.audit.list({ entityType: "order", entityId: id }),
    ]);
    // An account with orders cannot be deleted (orders reference it), so it is there.
    if (!customer) throw new Error(`order ${id} has no customer ${order.userId}`);
    return {
      order: { ...order, customer: { id: customer.id, email: customer.email, name: customer.name } },
      refunds,
      history: entries.filter((entry) => HISTORY_ACTIONS.test(entry.action)).reverse(),
    };
  });
}
