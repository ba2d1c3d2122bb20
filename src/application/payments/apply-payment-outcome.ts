import type { RequestOrigin } from "../../domain/audit.ts";
import { isDatabaseUnavailable } from "../../domain/errors.ts";
import type { Order } from "../../domain/order.ts";
import { type AttemptMark, confirmationOutcome, decidePayment, eventOfIntent, isMarkedBy } from "../../domain/payment.ts";
import { type OrderChange, applyToOrder, applyToOrderAt } from "../orders/apply-to-order.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderAt } from "../ports/orders.ts";
import type { PaymentIntent } from "../ports/payments.ts";
import { applyProcessorEvent, processorEventChange } from "./apply-processor-event.ts";
import { askForRefund } from "./refunds.ts";

/** Who applies an outcome, and what their audit entry says besides the intent's own facts. */
export interface OutcomeAuthor {
  userId: string | null;
  origin: RequestOrigin;
  changes: Record<string, unknown>;
}

/**
 * The last step of a payment attempt (decisions §4), for payOrder and for housekeeping finishing an
 * attempt a crash left: under the order's lock (or, given `seen`, in one statement on the order as
 * the caller last saw it, if it is still so: applyUnlessChanged), the intent as the processor
 * answered for it is applied as the processor's own report of it would be (so a webhook that came
 * first, or staff who moved the order, change nothing twice), a fresh intent becomes the order's,
 * the `payment.*` audit entry is written, and the attempt's mark is cleared. Money the order no
 * longer needs (it ended meanwhile) is marked due for refund there, and asked of the processor
 * after that commit. Given `onlyAttemptStartedAt` (housekeeping), an order another transaction
 * holds, or whose attempt is no longer that one (settled, or taken over by a new payment since), is
 * left alone: null. Given `ownAttempt` (a payment's own step 3), an order whose attempt is no
 * longer that one is left alone too, and returned as it is.
 */
export async function applyPaymentOutcome(
  deps: Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">,
  orderId: string,
  intent: PaymentIntent,
  by: OutcomeAuthor,
  { onlyAttemptStartedAt, ownAttempt, seen }: { onlyAttemptStartedAt?: Date; ownAttempt?: AttemptMark; seen?: OrderAt } = {},
): Promise<Order | null> {
  if (seen) {
    const applied = await applyUnlessChanged(deps, seen, intent, by);
    if (applied) return applied;
  }
  const applied = await deps.uow.transaction(async (tx) => {
    const current = await tx.orders.lock(orderId, { skipLocked: onlyAttemptStartedAt !== undefined });
    if (!current || (onlyAttemptStartedAt && current.paymentStartedAt?.getTime() !== onlyAttemptStartedAt.getTime())) return { order: null, refund: null };
    // A payment's own attempt no longer marked: its outcome is in already (this very call's, its
    // answer lost; or housekeeping's), or a newer attempt took over. Nothing to apply, no mark to clear.
    if (ownAttempt && !isMarkedBy(current, ownAttempt)) return { order: current, refund: null };
    const { known, event, changes, audit } = outcomeOn(current, intent, by);
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

/** The outcome on the order as it is: the order with a fresh intent adopted, the event the intent tells of, the caller's changes and the audit entry's fields. */
function outcomeOn(current: Order, intent: PaymentIntent, by: OutcomeAuthor) {
  const outcome = confirmationOutcome(intent);
  // A fresh intent becomes the order's (unless staff or the processor moved it on meanwhile).
  const adopt = current.stripePaymentIntentId === null && current.status === "PENDING" ? { stripePaymentIntentId: intent.id } : {};
  const audit: OrderChange["audit"] = {
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
  return { known: { ...current, ...adopt }, event: eventOfIntent(intent), changes: { ...adopt, paymentStartedAt: null }, audit };
}

/**
 * The outcome applied in one statement to the order as the caller last saw it (`seen`), when that is
 * all it takes: the order's row and its audit entry. Null, having written nothing, when it takes more
 * (stock back, a refund due) or the order changed since: then it is applied under the lock.
 */
async function applyUnlessChanged(deps: Pick<Deps, "uow" | "ids" | "clock">, seen: OrderAt, intent: PaymentIntent, by: OutcomeAuthor): Promise<Order | null> {
  const { known, event, changes, audit } = outcomeOn(seen.order, intent, by);
  const decision = event ? decidePayment(known, event) : null;
  if (decision?.refundLatePayment || event?.kind === "refunded") return null;
  const change = event && decision ? processorEventChange(known, event, decision, audit, changes, null) : { changes, restock: false, audit };
  try {
    return (await applyToOrderAt(deps, seen, change)) ? { ...known, ...change.changes } : null;
  } catch (error) {
    // The connection lost with the statement sent: applied under the lock instead, whose transaction
    // is run again when its own connection is lost. Had it landed, the attempt's mark is gone, and
    // nothing more is done (applyPaymentOutcome's ownAttempt).
    if (isDatabaseUnavailable(error)) return null;
    throw error;
  }
}
