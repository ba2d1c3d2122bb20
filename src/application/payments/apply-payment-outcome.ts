import type { RequestOrigin } from "../../domain/audit.ts";
import type { Order } from "../../domain/order.ts";
import { confirmationOutcome, eventOfIntent } from "../../domain/payment.ts";
import { applyToOrder } from "../orders/apply-to-order.ts";
import type { Deps } from "../ports/index.ts";
import type { PaymentIntent } from "../ports/payments.ts";
import { applyProcessorEvent } from "./apply-processor-event.ts";
import { askForRefund } from "./refunds.ts";

/** Who applies an outcome, and what their audit entry says besides the intent's own facts. */
export interface OutcomeAuthor {
  userId: string | null;
  origin: RequestOrigin;
  changes: Record<string, unknown>;
}

/**
 * The last step of a payment attempt (decisions §4), for payOrder and for housekeeping finishing an
 * attempt a crash left: under the order's lock, the intent as the processor answered for it is
 * applied as the processor's own report of it would be (so a webhook that came first, or staff who
 * moved the order, change nothing twice), a fresh intent becomes the order's, the `payment.*` audit
 * entry is written, and the attempt's mark is cleared. Money the order no longer needs (it ended
 * meanwhile) is marked due for refund there, and asked of the processor after that commit. Given `onlyAttemptStartedAt` (housekeeping),
 * an order another transaction holds, or whose attempt is no longer that one (settled, or taken
 * over by a new payment since), is left alone: null.
 */
export async function applyPaymentOutcome(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  orderId: string,
  intent: PaymentIntent,
  by: OutcomeAuthor,
  { onlyAttemptStartedAt }: { onlyAttemptStartedAt?: Date } = {},
): Promise<Order | null> {
  const outcome = confirmationOutcome(intent);
  const applied = await deps.uow.transaction(async (tx) => {
    const current = await tx.orders.lock(orderId, { skipLocked: onlyAttemptStartedAt !== undefined });
    if (!current || (onlyAttemptStartedAt && current.paymentStartedAt?.getTime() !== onlyAttemptStartedAt.getTime())) return { order: null, refund: null };
    // A fresh intent becomes the order's (unless staff or the processor moved it on meanwhile).
    const adopt = current.stripePaymentIntentId === null && current.status === "PENDING" ? { stripePaymentIntentId: intent.id } : {};
    const known = { ...current, ...adopt };
    const audit = {
      action: outcome.audit,
      userId: by.userId,
      origin: by.origin,
      changes: {
        intentId: intent.id,
        intentStatus: intent.status,
        ...by.changes,
        ...(outcome.decline ? { decline: outcome.decline } : {}),
      },
    };
    const event = eventOfIntent(intent);
    const changes = { ...adopt, paymentStartedAt: null };
    if (event) {
      const decided = await applyProcessorEvent(tx, deps, known, event, audit, changes);
      return { order: { ...known, ...changes, ...decided.changes }, refund: decided.refund };
    }
    await applyToOrder(tx, deps, known, { changes, restock: false, audit });
    return { order: { ...known, ...changes }, refund: null };
  });
  // Money the order no longer needs (it ended meanwhile) was marked due for refund there: asked now, holding nothing.
  if (applied.refund) await askForRefund(deps, applied.refund);
  return applied.order;
}
