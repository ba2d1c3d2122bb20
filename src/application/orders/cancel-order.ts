import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type OrderStatus, type OrderView, type PaymentStatus, refuseUnlessCancellable } from "../../domain/order.ts";
import { type StoppedPayment, stopPaymentThenMove } from "../payments/stop-payment.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { applyToOrder, cancellation } from "./apply-to-order.ts";

type CancelDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * A customer cancels an unpaid order of their own (decisions §15, POST /api/orders/:id/cancel): 404
 * unknown, 403 another's, 400 paid, 400 not unpaid and PENDING. Its payment intent is stopped at the
 * processor first, holding nothing; one found paid settles the order as paid, which is then not
 * cancelled (400 "Order has already been paid"), and one still processing is 409. Then, under the
 * order's lock and checked again, it is cancelled with its stock back and audited `order.cancel`,
 * and answered as the cancel left it. An order given a new intent meanwhile goes round again.
 */
export async function cancelOrder(deps: CancelDeps, userId: string, orderId: string, origin: RequestOrigin): Promise<OrderView> {
  return stopPaymentThenMove(
    deps,
    origin,
    "the customer cancelled the order",
    async () => ownCancellable(await deps.uow.read((db) => db.orders.findById(orderId)), userId),
    (stopped) => deps.uow.transaction((tx) => cancel(tx, deps, userId, orderId, stopped, origin)),
  );
}

function ownCancellable<O extends { userId: string; status: OrderStatus; paymentStatus: PaymentStatus }>(order: O | null, userId: string): O {
  if (!order) throw new DomainError("order.not_found", "Order not found");
  if (order.userId !== userId) throw new DomainError("forbidden", "This order belongs to another user");
  refuseUnlessCancellable(order);
  return order;
}

/** The cancel itself, under the order's lock; null when the order got a payment intent other than the one stopped. */
async function cancel(
  tx: Repositories,
  deps: CancelDeps,
  userId: string,
  orderId: string,
  stopped: StoppedPayment | null,
  origin: RequestOrigin,
): Promise<OrderView | null> {
  const order = ownCancellable(await tx.orders.lock(orderId), userId);
  if (order.stripePaymentIntentId !== (stopped?.intentId ?? null)) return null;
  await applyToOrder(
    tx,
    deps,
    order,
    cancellation(order, {
      action: "order.cancel",
      userId,
      origin,
      changes: { orderNumber: order.orderNumber, from: order.status, to: "CANCELLED", paymentStatus: order.paymentStatus },
    }),
  );
  return tx.orders.findById(orderId);
}
