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
  /** The latest ORDER_HISTORY_SHOWN audit entries about it (order, payment and webhook actions), oldest first. */
  history: AuditEntry[];
  /** How many entries it has in all: the audit log (GET /api/admin/audit) pages through every one. */
  historyTotal: number;
}

/**
 * How much of an order's history its page shows: the latest entries. Nothing else bounds it, as a
 * customer may try card after card: 6,000 declines made one order's answer 92 MB, and eight staff
 * looking at it at once took the server from 130 MB to 1.6 GB (found by an attack).
 */
export const ORDER_HISTORY_SHOWN = 100;

/** One order for the back office (GET /api/admin/orders/:id). */
export async function getOrderDetail(deps: Pick<Deps, "uow">, actor: Actor, id: string): Promise<OrderDetail> {
  requirePermission(actor, "orders:read");
  return deps.uow.read(async (db) => {
    const order = await db.orders.findById(id);
    if (!order) throw new DomainError("order.not_found", "Order not found");
    // Every entry about one order is an order, payment or webhook action (an export's names no order).
    const [customer, refunds, latest] = await Promise.all([
      db.users.findById(order.userId),
      db.refunds.listOfOrder(id),
      db.audit.listPage({ entityType: "order", entityId: id }, { page: 1, limit: ORDER_HISTORY_SHOWN }),
    ]);
    // An account with orders cannot be deleted (orders reference it), so it is there.
    if (!customer) throw new Error(`order ${id} has no customer ${order.userId}`);
    return {
      order: { ...order, customer: { id: customer.id, email: customer.email, name: customer.name } },
      refunds,
      history: latest.items.reverse(),
      historyTotal: latest.total,
    };
  });
}
