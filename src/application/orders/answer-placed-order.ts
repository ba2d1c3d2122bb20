import { DomainError } from "../../domain/errors.ts";
import { awaitsFirstIntent } from "../../domain/payment.ts";
import { makeOrderIntent } from "../payments/order-intent.ts";
import type { Deps } from "../ports/index.ts";
import type { PlacedOrder } from "./attach-payment-intent.ts";

/**
 * Decisions §15: a checkout replayed with its Idempotency-Key, whose first request made an order
 * and never answered (its process died between its commit and its answer, or is finishing still),
 * answers that order as the first would have: with the client secret of the order's payment intent,
 * the one it stores, or else the one checkout made for it (its key finds it again). While the order
 * still waits for its first intent (the checkout, or housekeeping after a crash, is getting it) the
 * answer is 409, to try again shortly. One that ended before it got one (its customer cancelled it,
 * as the unpaid-orders limit may have told them to, or it was undone) can never be paid: 409 naming
 * it, for the client to check out again, and the same however often the key is replayed.
 */
export async function answerPlacedOrder(deps: Pick<Deps, "uow" | "payments">, userId: string, orderId: string): Promise<PlacedOrder> {
  const order = await deps.uow.read((db) => db.orders.findById(orderId));
  // The key is the user's, and it recorded the order in the transaction that made it.
  if (order?.userId !== userId) throw new Error(`order ${orderId} recorded under a key of user ${userId} is not theirs`);
  if (awaitsFirstIntent(order)) {
    if (order.status === "PENDING") throw new DomainError("order.in_progress", "Your order is still being placed; try again shortly", { orderId });
    throw new DomainError("order.checkout_ended", "This checkout's order ended before it could be paid; please check out again", {
      orderId,
      orderNumber: order.orderNumber,
      status: order.status,
    });
  }
  const intent = order.stripePaymentIntentId ? await deps.payments.retrieveIntent(order.stripePaymentIntentId) : await makeOrderIntent(deps.payments, order);
  return { orderId: order.id, orderNumber: order.orderNumber, clientSecret: intent.clientSecret, amount: order.total };
}
