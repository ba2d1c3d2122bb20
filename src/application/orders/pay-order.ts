import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type Order, type OrderStatus, type PaymentStatus, payability } from "../../domain/order.ts";
import { type IntentStatus, confirmationOutcome } from "../../domain/payment.ts";
import type { Deps } from "../ports/index.ts";
import { applyToOrder } from "./apply-to-order.ts";

export interface PaymentRequest {
  orderId: string;
  /** The processor's id of the payment method (Stripe's test ones: pm_card_visa, …). */
  paymentMethodId: string;
}

export interface PaymentResult {
  success: boolean;
  paymentIntent: { id: string; status: IntentStatus; clientSecret: string };
  order: { id: string; orderNumber: string; paymentStatus: PaymentStatus; status: OrderStatus };
}

type PayDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock">;

/** Decisions §4's checks, in their order: already paid first, then any other status that is not payable. */
function refuseUnpayable(order: Pick<Order, "status" | "paymentStatus">): void {
  const why = payability(order);
  if (why === "order.already_paid") throw new DomainError(why, "Order has already been paid");
  if (why === "order.not_payable") throw new DomainError(why, "Order cannot be paid in its current status", { status: order.status, paymentStatus: order.paymentStatus });
}

/**
 * Pays an order (decisions §4): the caller's own (404 unknown, 403 another's), while payable, all
 * checked under the order's row lock, which is held for the whole attempt: payments of one order
 * run one at a time, and two can never both confirm. Each attempt is counted and has its own idempotency keys at the
 * processor (a repeated call after a crash replays the processor's answer instead of charging
 * again); an order whose intent was cancelled gets a fresh one. The outcome and its `payment.*`
 * audit entry land in that same transaction. A declined card fails the payment (the order stays
 * payable) and is answered with a 402 naming the decline.
 */
export async function payOrder(deps: PayDeps, userId: string, request: PaymentRequest, origin: RequestOrigin): Promise<PaymentResult> {
  const { order, intent, outcome } = await deps.uow.transaction(async (tx) => {
    const order = await tx.orders.lock(request.orderId);
    if (!order) throw new DomainError("order.not_found", "Order not found");
    if (order.userId !== userId) throw new DomainError("forbidden", "This order belongs to another user");
    refuseUnpayable(order);
    const attempt = order.paymentAttempts + 1;
    const intentId =
      order.stripePaymentIntentId ??
      (await deps.payments.createIntent({ amount: order.total, currency: "usd", metadata: { orderId: order.id, orderNumber: order.orderNumber }, idempotencyKey: `order-${order.id}-attempt-${attempt}` })).id;
    const intent = await deps.payments.confirmIntent(intentId, request.paymentMethodId, `confirm-${order.id}-${attempt}-${request.paymentMethodId}`);
    const outcome = confirmationOutcome(intent);
    await applyToOrder(tx, deps, order, {
      changes: { stripePaymentIntentId: intent.id, ...outcome.changes, paymentAttempts: attempt },
      restock: false,
      audit: {
        action: outcome.audit,
        userId,
        origin,
        changes: { intentId: intent.id, intentStatus: intent.status, paymentMethodId: request.paymentMethodId, attempt, ...(outcome.decline ? { decline: outcome.decline } : {}) },
      },
    });
    return { order: { ...order, ...outcome.changes }, intent, outcome };
  });

  if (outcome.decline) throw new DomainError("payment.declined", "Your card was declined.", { code: outcome.decline.code, declineCode: outcome.decline.declineCode });
  return {
    success: outcome.success,
    paymentIntent: { id: intent.id, status: intent.status, clientSecret: intent.clientSecret },
    order: { id: order.id, orderNumber: order.orderNumber, paymentStatus: order.paymentStatus, status: order.status },
  };
}
