import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type OrderStatus, type OrderView, endsPaid, isFinalStatus, restocksOn, trackingNumberFor, transition } from "../../domain/order.ts";
import { SHOP_PROCESSOR, paidWith } from "../../domain/payment.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type RefundRecord, orderRefundKey } from "../../domain/refund.ts";
import { type RefundOutcome, askForRefund, markRefundDue } from "../payments/refunds.ts";
import { type StoppedPayment, stopPaymentThenMove } from "../payments/stop-payment.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";

export type OrderRef = { id: string } | { orderNumber: string };
export interface StatusChange {
  status: OrderStatus;
  trackingNumber?: string | null;
}
/** The order as the move (and its refund, if it had one) left it; the refund "due" when the processor did not make it yet. */
export interface StatusMove {
  order: OrderView;
  refund: RefundOutcome | null;
}
type ChangeDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * A staff move of an order (decisions §4), by the status table. SHIPPED needs a tracking number
 * and no other move takes one. Ending an unpaid order first stops its payment at the processor
 * (one found paid is settled, then refunded as any paid order); an unpaid order may end REFUNDED
 * as well as CANCELLED, as the table allows (money staff took and gave back outside the shop),
 * and nothing is refunded. Ending a paid order refunds it, which also needs financials:refunds,
 * in three steps (decisions §14): the refund is marked due in the move's own transaction, with a
 * key from the order, so two staff ending it at once refund once; the processor is asked once
 * that has committed, holding nothing; its answer settles the payment as REFUNDED. A processor
 * that refuses or cannot be reached leaves the move done and its refund due, retried by
 * housekeeping until it answers. The same use case serves PUT /api/orders/:id/status and
 * `order:set-status`.
 */
export async function changeOrderStatus(deps: ChangeDeps, actor: Actor, ref: OrderRef, change: StatusChange, origin: RequestOrigin): Promise<StatusMove> {
  requirePermission(actor, "orders:write");
  const id = "id" in ref ? ref.id : (await deps.uow.read((db) => db.orders.findByNumber(ref.orderNumber)))?.id;
  if (!id) throw new DomainError("order.not_found", "Order not found");
  const moved = await stopPaymentThenMove(
    deps,
    origin,
    `the order was moved to ${change.status}`,
    // Refused before anything is stopped: a move the table or the actor's permissions do not allow.
    // An unpaid order that ends has its payment stopped first.
    async () => {
      const current = await deps.uow.read((db) => db.orders.findById(id));
      if (!current) throw new DomainError("order.not_found", "Order not found");
      transition(current.status, change.status);
      trackingNumberFor(change.status, change.trackingNumber);
      if (endsPaid(current, change.status)) requirePermission(actor, "financials:refunds");
      return isFinalStatus(change.status) && current.paymentStatus !== "PAID" ? current : null;
    },
    (stopped) => deps.uow.transaction((tx) => move(tx, deps, actor, id, { ...change, stopped }, origin)),
  );
  if (!moved.refund) return { order: moved.order, refund: null };
  const refund = await askForRefund(deps, moved.refund);
  // An ended order moves no more: only its payment may have changed since, by the refund's settling.
  const order = refund === "made" ? ((await deps.uow.read((db) => db.orders.findById(id))) ?? moved.order) : moved.order;
  return { order, refund };
}

/**
 * The move itself, under the order's lock, answering the order as this move left it (read before the
 * lock is let go, so never as a later move left it) and the refund it owes; null when a payment
 * intent appeared since the one stopped (the caller goes round again).
 */
async function move(
  tx: Repositories,
  deps: ChangeDeps,
  actor: Actor,
  id: string,
  wanted: StatusChange & { stopped: StoppedPayment | null },
  origin: RequestOrigin,
): Promise<{ order: OrderView; refund: RefundRecord | null } | null> {
  const order = await tx.orders.lock(id);
  if (!order) throw new DomainError("order.not_found", "Order not found");
  const to = transition(order.status, wanted.status);
  const trackingNumber = trackingNumberFor(to, wanted.trackingNumber);
  const paidEnding = endsPaid(order, to);
  if (!paidEnding && wanted.stopped && order.stripePaymentIntentId && order.stripePaymentIntentId !== wanted.stopped.intentId) return null;
  if (paidEnding) requirePermission(actor, "financials:refunds");
  // Money taken through another provider (Square, PayPal) the shop cannot return: the order ends, its
  // payment stays PAID, and the audit entry flags the refund due through that provider.
  const paid = paidEnding ? paidWith(order) : null;
  const paidVia = paid?.via ?? null;
  const refund =
    paidVia === SHOP_PROCESSOR
      ? await markRefundDue(tx, deps, {
          orderId: order.id,
          intentId: paidIntent(order.id, paid!.reference),
          idempotencyKey: orderRefundKey(order.id),
          reason: "order_ended",
          amount: order.total,
        })
      : null;
  await applyToOrder(tx, deps, order, {
    changes: { status: to, ...(trackingNumber ? { trackingNumber } : {}) },
    restock: restocksOn(order.status, to),
    audit: {
      action: "order.status_update",
      userId: actor.userId,
      origin,
      changes: {
        from: order.status,
        to,
        ...(trackingNumber ? { trackingNumber } : {}),
        ...(refund ? { refundDue: refund.amount } : {}),
        ...(paidVia && paidVia !== SHOP_PROCESSOR ? { refundDueThrough: paidVia, flagged: true } : {}),
        by: actor.role,
      },
    },
  });
  return { order: (await tx.orders.findById(id))!, refund };
}

/** The shop's processor's payment a paid order was paid with (paidWith's reference), which it must have. */
function paidIntent(orderId: string, reference: string | null): string {
  if (!reference) throw new Error(`paid order ${orderId} has no payment intent`);
  return reference;
}
