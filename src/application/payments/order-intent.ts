import type { Order } from "../../domain/order.ts";
import type { PaymentGateway, PaymentIntent } from "../ports/payments.ts";

/**
 * Asks the processor for an order's payment intent (decisions §4): its total in cents, in US
 * dollars, the order in its metadata. The key says which intent: the order's own (`order-<id>`,
 * the one checkout makes), or a payment attempt's fresh one after a cancelled intent
 * (`order-<id>-attempt-<n>`). Asked again with the same key, the processor answers the intent it
 * made then, so whoever finishes what a crash left (housekeeping) finds the very same intent.
 */
export function makeOrderIntent(
  payments: Pick<PaymentGateway, "createIntent">,
  order: Pick<Order, "id" | "orderNumber" | "total">,
  attempt: number | null = null,
): Promise<PaymentIntent> {
  return payments.createIntent({
    amount: order.total,
    currency: "usd",
    metadata: { orderId: order.id, orderNumber: order.orderNumber },
    idempotencyKey: attempt === null ? `order-${order.id}` : `order-${order.id}-attempt-${attempt}`,
  });
}
