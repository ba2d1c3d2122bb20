import { NO_ORIGIN } from "../../domain/audit.ts";
import { DomainError, failureOf, isDatabaseBusy } from "../../domain/errors.ts";
import { recordAudit } from "../audit.ts";
import { makeOrderIntent } from "../payments/order-intent.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderWithoutIntent } from "../ports/orders.ts";
import type { PaymentIntent } from "../ports/payments.ts";
import { swept } from "../system/sweep.ts";
import { undoPlacedOrder } from "./undo-placed-order.ts";

type FinishDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * Decisions §15: a checkout whose process died between its commit and storing its payment intent
 * left a PENDING order without one (its stock taken, its lines gone from the cart), which no payment
 * may touch (it would get a second intent). Once it is older than the grace time it gets its intent
 * from the processor under the order's own key (`order-<id>`: the very intent checkout asked for,
 * made then or now), stored as checkout stores it, with an audit entry (`order.intent_recovered`).
 * When the processor will not make one, the order is undone as checkout undoes it (undoPlacedOrder):
 * cancelled, its stock back, its lines back in the cart within the cart's limits, its
 * Idempotency-Key freed, all of it audited. An order the processor cannot answer for waits for the
 * next run. Each order is handled under its lock, skipped while another instance holds it and
 * checked again there, so two housekeepers handle it once. Returns the numbers of the orders given their intent, and of those undone.
 */
export async function finishStrandedCheckouts(deps: FinishDeps, graceMs: number): Promise<{ intentsStored: string[]; undone: string[] }> {
  // As beginPaymentAttempt counts it: exactly the grace time old is abandoned.
  const cutOff = new Date(deps.clock.now().getTime() - graceMs);
  const intentsStored: string[] = [];
  const undone: string[] = [];
  for await (const order of swept<OrderWithoutIntent>((limit, after) => deps.uow.read((db) => db.orders.findWithoutIntentBy(cutOff, limit, after)))) {
    const outcome = await finish(deps, order);
    if (outcome === "stored") intentsStored.push(order.orderNumber);
    if (outcome === "undone") undone.push(order.orderNumber);
  }
  return { intentsStored, undone };
}

async function finish(deps: FinishDeps, order: OrderWithoutIntent): Promise<"stored" | "undone" | "passed"> {
  let intent: PaymentIntent;
  try {
    intent = await makeOrderIntent(deps.payments, order);
  } catch (error) {
    if (error instanceof DomainError && error.code === "payment.intent_refused") {
      const undone = await undo(deps, order.id, error).catch((undoing: unknown) => {
        // A row the undoing needs (a product's, to restock) held elsewhere past the lock limit:
        // passed over, as expiry does, so one held row holds back neither the rest nor the run's later steps.
        if (!isDatabaseBusy(undoing)) throw undoing;
        deps.logger.warn("order.undo_passed_over", { orderNumber: order.orderNumber, ...failureOf(undoing) });
        return false;
      });
      return undone ? "undone" : "passed";
    }
    deps.logger.warn("order.intent_recovery_failed", { orderNumber: order.orderNumber, ...failureOf(error) });
    return "passed";
  }
  const stored = await deps.uow.transaction(async (tx) => {
    const current = await tx.orders.lock(order.id, { skipLocked: true });
    if (!current || current.stripePaymentIntentId === intent.id) return "passed";
    if (!(await tx.orders.attachPaymentIntent(order.id, intent.id, deps.clock.now()))) return "ended";
    // Staff reading the order's history see where its intent came from, and when.
    await recordAudit(tx, deps, {
      userId: null,
      action: "order.intent_recovered",
      entityType: "order",
      entityId: order.id,
      changes: { intentId: intent.id, recoveredBy: "housekeeping" },
      origin: NO_ORIGIN,
    });
    return "stored";
  });
  // Ended meanwhile (staff, the sweeper, another provider's payment): as at checkout, its intent must never be paid.
  if (stored === "ended")
    await deps.payments
      .cancelIntent(intent.id)
      .catch((error: unknown) => deps.logger.error("order.intent_cancel_failed", { orderNumber: order.orderNumber, ...failureOf(error) }));
  return stored === "stored" ? "stored" : "passed";
}

/** The order as if it had not been placed, in one transaction; false when it is no longer this run's to undo. */
function undo(deps: FinishDeps, orderId: string, refusal: DomainError): Promise<boolean> {
  return deps.uow.transaction(async (tx) => {
    const order = await tx.orders.lock(orderId, { skipLocked: true });
    if (!order) return false;
    return undoPlacedOrder(tx, deps, order, {
      reason: "the processor would not make its payment intent",
      refusal: refusal.details ?? null,
      userId: null,
      origin: NO_ORIGIN,
    });
  });
}
