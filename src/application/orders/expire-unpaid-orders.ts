import { NO_ORIGIN } from "../../domain/audit.ts";
import { failureOf, isDatabaseBusy } from "../../domain/errors.ts";
import { payability } from "../../domain/order.ts";
import { stopPayment } from "../payments/stop-payment.ts";
import type { Deps } from "../ports/index.ts";
import type { UnpaidOrder } from "../ports/orders.ts";
import { swept } from "../system/sweep.ts";
import { applyToOrder, cancellation } from "./apply-to-order.ts";

type SweepDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * Decisions §4: PENDING orders not paid within the payment time are cancelled and their stock
 * released (audit `order.expire`). Each one's payment intent is stopped first, at the processor, so
 * it cannot be paid afterwards; one found paid is settled as paid instead. Any number of sweepers
 * may run at once: an order is locked with SKIP LOCKED and checked again under the lock, so each is
 * cancelled, and restocked, once. An order the processor cannot answer for is passed over, and
 * the run pages on past it, so it never holds back the rest.
 */
export async function expireUnpaidOrders(deps: SweepDeps, paymentTtlMinutes: number): Promise<{ expired: string[]; paidMeanwhile: string[] }> {
  const cutOff = new Date(deps.clock.now().getTime() - paymentTtlMinutes * 60_000);
  const expired: string[] = [];
  const paidMeanwhile: string[] = [];
  for await (const candidate of swept<UnpaidOrder>((limit, after) => deps.uow.read((db) => db.orders.findUnpaidBefore(cutOff, limit, after)))) {
    const outcome = await expire(deps, candidate, cutOff, paymentTtlMinutes);
    if (outcome === "expired") expired.push(candidate.orderNumber);
    if (outcome === "paid") paidMeanwhile.push(candidate.orderNumber);
  }
  return { expired, paidMeanwhile };
}

async function expire(deps: SweepDeps, candidate: UnpaidOrder, cutOff: Date, paymentTtlMinutes: number): Promise<"expired" | "paid" | "passed"> {
  const stopped = await stopPayment(deps, candidate, NO_ORIGIN, "the order's payment time ran out").catch((error: unknown) => {
    deps.logger.warn("order.expire_intent_failed", { orderNumber: candidate.orderNumber, ...failureOf(error) });
    return null;
  });
  if (!stopped || stopped.outcome === "processing") return "passed";
  if (stopped.outcome === "paid") return "paid";
  const done = await expireStopped(deps, candidate, stopped.intentId, cutOff, paymentTtlMinutes).catch((error: unknown) => {
    // A row it needs (a product's, to restock) held elsewhere too long: passed over, as an order the
    // processor cannot answer for is, so one held row holds back neither the rest nor housekeeping's later steps.
    if (!isDatabaseBusy(error)) throw error;
    deps.logger.warn("order.expire_passed_over", { orderNumber: candidate.orderNumber, ...failureOf(error) });
    return false;
  });
  return done ? "expired" : "passed";
}

/** The order cancelled and restocked, under its lock, if it is still this run's to expire. */
function expireStopped(deps: SweepDeps, candidate: UnpaidOrder, intentId: string | null, cutOff: Date, paymentTtlMinutes: number): Promise<boolean> {
  return deps.uow.transaction(async (tx) => {
    const order = await tx.orders.lock(candidate.id, { skipLocked: true });
    // Gone, paid, ended or given a new payment intent since it was read: not this run's to expire.
    if (!order || payability(order) !== null || order.createdAt >= cutOff || order.stripePaymentIntentId !== intentId) return false;
    await applyToOrder(
      tx,
      deps,
      order,
      cancellation(order, {
        action: "order.expire",
        userId: null,
        origin: NO_ORIGIN,
        changes: {
          orderNumber: order.orderNumber,
          from: order.status,
          to: "CANCELLED",
          paymentStatus: order.paymentStatus,
          unpaidForMinutes: paymentTtlMinutes,
        },
      }),
    );
    return true;
  });
}
