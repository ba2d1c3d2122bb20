import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type Order, type OrderStatus, type OrderView, restocksOn, trackingNumberFor, transition } from "../../domain/order.ts";
import { SHOP_PROCESSOR, paymentInProgress } from "../../domain/payment.ts";
import type { Actor } from "../../domain/permissions.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";
import { type StoppedPayment, stopPayment } from "./stop-payment.ts";

export type OrderRef = { id: string } | { orderNumber: string };
export interface StatusChange {
  status: OrderStatus;
  trackingNumber?: string | null;
}
type ChangeDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock">;

/** Rounds of "stop the payment, then end the order" before giving up on an order that keeps getting a new payment intent. */
const ROUNDS = 3;

/**
 * A staff move of an order (decisions §4), by the status table. SHIPPED needs a tracking number
 * and no other move takes one. Ending an unpaid order first stops its payment at the processor
 * (one found paid is settled, then refunded as any paid order); an unpaid order may end REFUNDED
 * as well as CANCELLED, as the table allows (money staff took and gave back outside the shop),
 * and nothing is refunded. Ending a paid order refunds it, which also needs financials:refunds;
 * the refund is made while the order is locked, with a key from the order, so two staff ending it
 * at once refund once, and a refused refund changes nothing. Should the database fail after the
 * processor refunded, the same move made again replays the refund (its key) and lands, and the
 * processor's charge.refunded event settles the order meanwhile. The same use case serves
 * PUT /api/orders/:id/status and `order:set-status`.
 */
export async function changeOrderStatus(deps: ChangeDeps, actor: Actor, ref: OrderRef, change: StatusChange, origin: RequestOrigin): Promise<OrderView> {
  requirePermission(actor, "orders:write");
  const id = "id" in ref ? ref.id : (await deps.uow.read((db) => db.orders.findByNumber(ref.orderNumber)))?.id;
  if (!id) throw new DomainError("order.not_found", "Order not found");
  const ending = change.status === "CANCELLED" || change.status === "REFUNDED";

  for (let round = 1; round <= ROUNDS; round++) {
    const current = await deps.uow.read((db) => db.orders.findById(id));
    if (!current) throw new DomainError("order.not_found", "Order not found");
    transition(current.status, change.status);
    const trackingNumber = trackingNumberFor(change.status, change.trackingNumber);
    if (ending && current.paymentStatus === "PAID") requirePermission(actor, "financials:refunds");
    const stopped = ending && current.paymentStatus !== "PAID" ? await stopPayment(deps, current, origin, `the order was moved to ${change.status}`) : null;
    if (stopped?.outcome === "processing") throw paymentInProgress();
    if (stopped?.outcome === "paid") continue;
    const moved = await deps.uow.transaction((tx) => move(tx, deps, actor, id, { to: change.status, trackingNumber, stopped }, origin));
    if (moved) return moved;
  }
  throw paymentInProgress();
}

/**
 * The move itself, under the order's lock, answering the order as this move left it (read before the
 * lock is let go, so never as a later move left it); null when a payment intent appeared since the
 * one stopped (the caller goes round again).
 */
async function move(
  tx: Repositories,
  deps: ChangeDeps,
  actor: Actor,
  id: string,
  wanted: { to: OrderStatus; trackingNumber: string | null; stopped: StoppedPayment | null },
  origin: RequestOrigin,
): Promise<OrderView | null> {
  const order = await tx.orders.lock(id);
  if (!order) throw new DomainError("order.not_found", "Order not found");
  const to = transition(order.status, wanted.to);
  const refund = (to === "CANCELLED" || to === "REFUNDED") && order.paymentStatus === "PAID";
  if (!refund && wanted.stopped && order.stripePaymentIntentId && order.stripePaymentIntentId !== wanted.stopped.intentId) return null;
  const refunded = refund ? await refundOrder(deps, actor, order) : null;
  await applyToOrder(tx, deps, order, {
    changes: {
      status: to,
      ...(refunded === "here" ? { paymentStatus: "REFUNDED" } : {}),
      ...(wanted.trackingNumber ? { trackingNumber: wanted.trackingNumber } : {}),
    },
    restock: restocksOn(order.status, to),
    audit: {
      action: "order.status_update",
      userId: actor.userId,
      origin,
      changes: {
        from: order.status,
        to,
        ...(wanted.trackingNumber ? { trackingNumber: wanted.trackingNumber } : {}),
        ...(refunded === "here" ? { refunded: order.total } : {}),
        ...(refunded === "elsewhere" ? { refundDueThrough: order.paidVia, flagged: true } : {}),
        by: actor.role,
      },
    },
  });
  return tx.orders.findById(id);
}

/**
 * Money taken through the shop's own processor is refunded through it ("here"). Money taken through
 * another provider (Square, PayPal) the shop cannot return: the order ends, its payment stays PAID,
 * and the audit entry flags the refund that is due through that provider ("elsewhere").
 */
async function refundOrder(deps: Pick<Deps, "payments">, actor: Actor, order: Order): Promise<"here" | "elsewhere"> {
  requirePermission(actor, "financials:refunds");
  if ((order.paidVia ?? SHOP_PROCESSOR) !== SHOP_PROCESSOR) return "elsewhere";
  const intentId = order.paidReference ?? order.stripePaymentIntentId;
  if (!intentId) throw new Error(`paid order ${order.id} has no payment intent`);
  await deps.payments.refund({ intentId, idempotencyKey: `refund-${order.id}` });
  return "here";
}
