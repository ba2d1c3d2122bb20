import type { RequestOrigin } from "../../domain/audit.ts";
import type { CartLine } from "../../domain/cart.ts";
import { DomainError, failureOf, isDatabaseRefusal } from "../../domain/errors.ts";
import type { Cents } from "../../domain/money.ts";
import type { Order } from "../../domain/order.ts";
import { makeOrderIntent } from "../payments/order-intent.ts";
import type { Deps } from "../ports/index.ts";
import { undoPlacedOrder } from "./undo-placed-order.ts";

/** What checkout answers: the order, and the client secret of its payment intent for the front end to pay with. */
export interface PlacedOrder {
  orderId: string;
  orderNumber: string;
  clientSecret: string;
  amount: Cents;
}

type AttachDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/** Attempts at undoing an order whose payment intent failed, before it is left to the sweeper (and the log). */
const UNDO_ATTEMPTS = 3;

/**
 * Decisions §4: the payment intent is created after commit (amount in cents, the order in its
 * metadata, an idempotency key from the order id) and its id stored, but only on an order still
 * PENDING: one cancelled meanwhile (by staff, or the sweeper) must not be payable, so its new
 * intent is cancelled again. If anything fails, the order is undone and the caller gets a 500; but
 * if the database went away, or another session held the order's row too long, the order is left to
 * housekeeping, as a crash there leaves it, and the caller gets the 503 that says to try again.
 */
export async function attachPaymentIntent(deps: AttachDeps, order: Order, lines: CartLine[], origin: RequestOrigin): Promise<PlacedOrder> {
  let intentId: string | null = null;
  try {
    const intent = await makeOrderIntent(deps.payments, order);
    intentId = intent.id;
    const attached = await deps.uow.write((db) => db.orders.attachPaymentIntent(order.id, intent.id, deps.clock.now()));
    if (!attached) throw new Error("the order ended before its payment intent was stored");
    return { orderId: order.id, orderNumber: order.orderNumber, clientSecret: intent.clientSecret, amount: order.total };
  } catch (error) {
    // The database went away before the intent was stored (or while it was), or the order's row was
    // locked elsewhere too long: the order is left as a process killed there leaves it, for
    // housekeeping to give it the intent under the same key (or it has it already), and the caller
    // is told to try again, which its Idempotency-Key makes safe. (Undone here, the undoing would
    // wait on the same lock.)
    if (isDatabaseRefusal(error)) {
      deps.logger.warn("order.payment_intent_unstored", { orderId: order.id, intentId, ...failureOf(error) });
      throw error;
    }
    deps.logger.error("order.payment_intent_failed", { orderId: order.id, ...failureOf(error) });
    if (intentId)
      await deps.payments.cancelIntent(intentId).catch((e: unknown) => deps.logger.error("order.intent_cancel_failed", { orderId: order.id, ...failureOf(e) }));
    await undoOrder(deps, order, lines, origin);
    throw new DomainError("order.creation_failed", "Order creation failed");
  }
}

/**
 * The order as if it had not been placed (undoPlacedOrder: cancelled, its stock back, its lines
 * back in the cart where they were), unless it ended meanwhile. A database that went away, or the
 * order or the cart held elsewhere past the lock limit, leaves it to housekeeping, as a crash here
 * would, and the caller is told to try again (503); any other failure is tried again. Given up,
 * housekeeping has it too: after the grace time it gets its intent, or is undone as here.
 */
async function undoOrder(deps: AttachDeps, order: Order, lines: CartLine[], origin: RequestOrigin): Promise<void> {
  for (let attempt = 1; attempt <= UNDO_ATTEMPTS; attempt++) {
    try {
      await deps.uow.transaction(async (tx) => {
        const current = await tx.orders.lock(order.id);
        if (current) await undoPlacedOrder(tx, deps, current, { reason: "the payment intent could not be created", userId: order.userId, origin, lines });
      });
      return;
    } catch (error) {
      if (isDatabaseRefusal(error)) {
        deps.logger.warn("order.undo_passed_over", { orderId: order.id, ...failureOf(error) });
        throw error;
      }
      deps.logger.error("order.undo_failed", { orderId: order.id, attempt, ...failureOf(error) });
    }
  }
}
