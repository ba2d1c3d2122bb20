import type { AuditAction, RequestOrigin } from "../../domain/audit.ts";
import { type Order, itemQuantities, paymentTimes, restocksOn, transition } from "../../domain/order.ts";
import { auditEntry, recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import type { OrderAt, OrderChanges } from "../ports/orders.ts";

export interface OrderChange {
  /** The payment's times are not given: they are stamped here, by the move (paymentTimes). */
  changes: Omit<OrderChanges, "updatedAt" | "paidAt" | "refundedAt">;
  /** The order's goods go back to stock. */
  restock: boolean;
  audit: { action: AuditAction; userId: string | null; changes: Record<string, unknown>; origin: RequestOrigin };
}

/**
 * An order cancelled with its goods back, as the status table allows from where it is: the change
 * of each way an unpaid order ends (a customer's cancel, expiry, a checkout undone), with the
 * caller's audit entry.
 */
export function cancellation(order: Pick<Order, "status">, audit: OrderChange["audit"]): OrderChange {
  return { changes: { status: transition(order.status, "CANCELLED") }, restock: restocksOn(order.status, "CANCELLED"), audit };
}

/**
 * Writes one change of a locked order in the caller's transaction: its fields, its goods back in
 * stock when the change says so, and its audit entry. Every path that moves an order (staff, the
 * sweeper, a checkout undone, a payment, the processor's events) ends here.
 */
export async function applyToOrder(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  order: Pick<Order, "id" | "items">,
  change: OrderChange,
): Promise<void> {
  const now = deps.clock.now();
  if (change.restock) await tx.products.returnStock(itemQuantities(order), now);
  if (Object.keys(change.changes).length > 0) await tx.orders.update(order.id, stamped(change, now));
  await recordAudit(tx, deps, { ...change.audit, entityType: "order", entityId: order.id });
}

/**
 * applyToOrder's change of an order that only its own row records (no restock, some field changed),
 * made in one statement, with no lock or transaction: on the order as it was read (`at`), only if
 * nothing wrote it since. The order's new version; null, writing nothing, when something did: the
 * caller then applies the change under the order's lock, to the order as it is.
 */
export async function applyToOrderAt(deps: Pick<Deps, "uow" | "ids" | "clock">, at: OrderAt, change: OrderChange): Promise<string | null> {
  if (change.restock || Object.keys(change.changes).length === 0) return null;
  const now = deps.clock.now();
  const audit = auditEntry(deps, { ...change.audit, entityType: "order", entityId: at.order.id });
  return deps.uow.write((db) => db.orders.updateAt(at.order.id, at.version, stamped(change, now), audit));
}

/** The change with the times it stamps: the payment's (paymentTimes) and the order's last update. */
const stamped = (change: OrderChange, now: Date): OrderChanges => ({ ...change.changes, ...paymentTimes(change.changes.paymentStatus, now), updatedAt: now });
