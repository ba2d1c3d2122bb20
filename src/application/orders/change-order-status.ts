import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type OrderStatus, type OrderView, restocksOn, transition } from "../../domain/order.ts";
import type { Actor } from "../../domain/permissions.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

export type OrderRef = { id: string } | { orderNumber: string };

/**
 * An administrator's move of an order (decisions §4), by the status table: SHIPPED needs a
 * tracking number; CANCELLED and REFUNDED put the goods back in stock unless they had shipped;
 * a paid order is refunded through the processor (which also needs financials:refunds), inside
 * the transaction that holds the order, with an idempotency key from the order, so a retry never
 * refunds twice and a failed refund changes nothing. The same use case serves PUT
 * /api/orders/:id/status and `order:set-status`.
 */
export async function changeOrderStatus(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  actor: Actor,
  ref: OrderRef,
  change: { status: OrderStatus; trackingNumber?: string },
  origin: RequestOrigin,
): Promise<OrderView> {
  requirePermission(actor, "orders:write");
  const id = "id" in ref ? ref.id : (await deps.uow.read((db) => db.orders.findByNumber(ref.orderNumber)))?.id;
  if (!id) throw new DomainError("order.not_found", "Order not found");

  const before = await deps.uow.transaction(async (tx) => {
    const order = await tx.orders.lock(id);
    if (!order) throw new DomainError("order.not_found", "Order not found");
    const to = transition(order.status, change.status);
    const trackingNumber = change.trackingNumber?.trim() || null;
    if (to === "SHIPPED" && !trackingNumber) throw new DomainError("order.tracking_required", "A tracking number is needed to ship an order", { field: "trackingNumber" });
    const refund = order.paymentStatus === "PAID" && (to === "CANCELLED" || to === "REFUNDED");
    if (refund) {
      requirePermission(actor, "financials:refunds");
      if (!order.stripePaymentIntentId) throw new Error(`paid order ${order.id} has no payment intent`);
      await deps.payments.refund({ intentId: order.stripePaymentIntentId, idempotencyKey: `refund-${order.id}` });
    }
    const now = deps.clock.now();
    if (restocksOn(order.status, to)) {
      await tx.products.returnStock(order.items.map((item) => ({ productId: item.productId, quantity: item.quantity })), now);
    }
    await tx.orders.update(order.id, { status: to, ...(refund ? { paymentStatus: "REFUNDED" } : {}), ...(trackingNumber ? { trackingNumber } : {}), updatedAt: now });
    await recordAudit(tx, deps, {
      userId: actor.userId,
      action: "order.status_update",
      entityType: "order",
      entityId: order.id,
      changes: { from: order.status, to, ...(trackingNumber ? { trackingNumber } : {}), ...(refund ? { refunded: order.total } : {}), by: actor.role },
      origin,
    });
    return order;
  });

  // An unpaid order that ends must not be paid later: its payment intent is cancelled too.
  const ended = change.status === "CANCELLED" || change.status === "REFUNDED";
  if (ended && before.paymentStatus !== "PAID" && before.stripePaymentIntentId) {
    await deps.payments.cancelIntent(before.stripePaymentIntentId).catch((error: unknown) =>
      deps.logger.warn("order.intent_cancel_failed", { orderId: before.id, error: error instanceof Error ? error.message : String(error) }),
    );
  }
  return (await deps.uow.read((db) => db.orders.findById(id)))!;
}
