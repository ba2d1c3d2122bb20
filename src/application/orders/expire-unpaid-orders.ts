import { NO_ORIGIN } from "../../domain/audit.ts";
import { payability } from "../../domain/order.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";

/** How many orders one run looks at; the next run takes the rest. */
const BATCH = 100;

/**
 * Decisions §4: PENDING orders not paid within the payment time are cancelled and their stock
 * released (audit `order.expire`). Each one's payment intent is cancelled first, at the processor,
 * so it cannot be paid afterwards; one that turns out to have succeeded is left for its payment
 * to settle. Any number of sweepers may run at once: an order is locked with SKIP LOCKED and
 * checked again under the lock, so each is cancelled, and restocked, once.
 */
export async function expireUnpaidOrders(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  paymentTtlMinutes: number,
): Promise<{ expired: string[]; paidMeanwhile: string[] }> {
  const cutOff = new Date(deps.clock.now().getTime() - paymentTtlMinutes * 60_000);
  const candidates = await deps.uow.read((db) => db.orders.findUnpaidBefore(cutOff, BATCH));
  const expired: string[] = [];
  const paidMeanwhile: string[] = [];
  for (const candidate of candidates) {
    if (candidate.stripePaymentIntentId) {
      const intent = await deps.payments.cancelIntent(candidate.stripePaymentIntentId).catch((error: unknown) => {
        deps.logger.warn("order.expire_intent_failed", { orderNumber: candidate.orderNumber, error: error instanceof Error ? error.message : String(error) });
        return null;
      });
      if (!intent) continue;
      if (intent.status === "succeeded") {
        paidMeanwhile.push(candidate.orderNumber);
        continue;
      }
    }
    const done = await deps.uow.transaction(async (tx) => {
      const order = await tx.orders.lock(candidate.id, { skipLocked: true });
      if (!order || payability(order) !== null || order.createdAt >= cutOff) return false;
      const now = deps.clock.now();
      await tx.orders.update(order.id, { status: "CANCELLED", updatedAt: now });
      await tx.products.returnStock(order.items.map((item) => ({ productId: item.productId, quantity: item.quantity })), now);
      await recordAudit(tx, deps, {
        userId: null,
        action: "order.expire",
        entityType: "order",
        entityId: order.id,
        changes: { orderNumber: order.orderNumber, from: order.status, to: "CANCELLED", paymentStatus: order.paymentStatus, unpaidForMinutes: paymentTtlMinutes },
        origin: NO_ORIGIN,
      });
      return true;
    });
    if (done) expired.push(candidate.orderNumber);
  }
  return { expired, paidMeanwhile };
}
