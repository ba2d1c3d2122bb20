import type { AuditAction, RequestOrigin } from "../../domain/audit.ts";
import { type Order, itemQuantities, paymentTimes } from "../../domain/order.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import type { OrderChanges } from "../ports/orders.ts";

export interface OrderChange {
  /** The payment's times are not given: they are stamped here, by the move (paymentTimes). */
  changes: Omit<OrderChanges, "updatedAt" | "paidAt" | "refundedAt">;
  /** The order's goods go back to stock. */
  restock: boolean;
  audit: { action: AuditAction; userId: string | null; changes: Record<string, unknown>; origin: RequestOrigin };
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
  if (Object.keys(change.changes).length > 0) {
    await tx.orders.update(order.id, { ...change.changes, ...paymentTimes(change.changes.paymentStatus, now), updatedAt: now });
  }
  await recordAudit(tx, deps, { ...change.audit, entityType: "order", entityId: order.id });
}
