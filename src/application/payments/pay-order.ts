import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError, failureOf, isDatabaseRefusal, isDatabaseUnavailable } from "../../domain/errors.ts";
import type { Order, OrderStatus, PaymentStatus } from "../../domain/order.ts";
import {
  type AttemptMark,
  type IntentStatus,
  PAYMENT_ATTEMPT_ABANDONED_MS,
  PAYMENT_TURN_PAUSES_MS,
  PAYMENT_WAITERS_PER_ORDER,
  beginPaymentAttempt,
  confirmationOutcome,
  isMarkedBy,
  paymentInProgress,
} from "../../domain/payment.ts";
import type { Deps } from "../ports/index.ts";
import type { OrderAt } from "../ports/orders.ts";
import type { PaymentIntent } from "../ports/payments.ts";
import { applyPaymentOutcome } from "./apply-payment-outcome.ts";
import { makeOrderIntent } from "./order-intent.ts";

export interface PaymentRequest {
  orderId: string;
  /** The processor's id of the payment method (Stripe's test ones: pm_card_visa, …). */
  paymentMethodId: string;
}

export interface PaymentResult {
  success: boolean;
  paymentIntent: { id: string; status: IntentStatus; clientSecret: string; nextAction: { redirectUrl: string } | null };
  order: { id: string; orderNumber: string; paymentStatus: PaymentStatus; status: OrderStatus };
}

type PayDeps = Pick<Deps, "uow" | "payments" | "ids" | "clock" | "logger">;

/**
 * Pays an order (decisions §4), in three steps, so no database connection waits on the processor:
 * 1. the order read: the caller's own (404 unknown, 403 another's), payable, and no other attempt
 *    waiting on the processor (one older than the grace time was abandoned, and is taken over);
 *    the attempt is counted and marked as started, in one statement that lands only if nothing
 *    wrote the order since it was read (else all of it again under the order's lock). Payments of
 *    one order are serialized: one that finds another attempt under way waits its turn, holding
 *    no connection (inTurn), and then answers as that one left the order: 400 paid already (or no
 *    longer payable), else 409, never a confirmation of its own (so a payment that found another
 *    under way never confirms too: one after a 3-D Secure challenge would start it again);
 * 2. the processor confirms the order's intent (a fresh one after a cancelled one), with keys of
 *    this attempt's, so a retry after a crash replays the processor's answer instead of charging
 *    again;
 * 3. the outcome applied as the processor's own report of the intent (so a webhook that came
 *    first, or staff who moved the order, change nothing twice), with its `payment.*` audit entry,
 *    and the mark cleared (applyPaymentOutcome, which housekeeping also uses to settle an attempt
 *    whose process died): in one statement if the order is still as step 1 left it, else under
 *    its lock.
 * When nothing else touches the order, steps 1 and 3 are three statements in all (the order read,
 * the mark, the outcome with its audit entry), where transactions took nine (bench/README.md).
 * A declined card fails the payment (the order stays payable) and is answered with a 402. A
 * processor that refused the call leaves the order payable; one that failed without saying what it
 * did leaves the attempt to housekeeping, as a crash would.
 */
export async function payOrder(
  deps: PayDeps,
  userId: string,
  request: PaymentRequest,
  origin: RequestOrigin,
  graceMs = PAYMENT_ATTEMPT_ABANDONED_MS,
  line: PaymentLine | null = null,
): Promise<PaymentResult> {
  const { order, attempt, startedAt, seen } = await inTurn(deps.clock, line, request.orderId, (waited) =>
    startAttempt(deps, userId, request.orderId, graceMs, waited),
  );
  let intent: PaymentIntent;
  try {
    const intentId = order.stripePaymentIntentId ?? (await makeOrderIntent(deps.payments, order, attempt)).id;
    intent = await deps.payments.confirmIntent(intentId, request.paymentMethodId, `confirm-${order.id}-${attempt}-${request.paymentMethodId}`);
  } catch (error) {
    // The processor may have confirmed it all the same (no answer came; it failed on its side): the
    // attempt stays open, as a crash there leaves it, so no other payment confirms meanwhile (409),
    // and housekeeping settles it from the processor's own state of the intent after the grace time.
    // Ended here, an order the processor had charged would stay unpaid.
    if (outcomeUnknown(error)) {
      deps.logger.warn("payment.outcome_unknown", { orderId: order.id, attempt, ...failureOf(error) });
      throw error;
    }
    await endAttempt(deps, order.id, { attempts: attempt, startedAt }).catch((e: unknown) =>
      deps.logger.error("payment.attempt_not_ended", { orderId: order.id, ...failureOf(e) }),
    );
    throw error;
  }

  const outcome = confirmationOutcome(intent);
  // The method the processor confirmed the intent with, as it says: an attempt taken over may have been confirmed with another card.
  const by = { userId, origin, changes: { paymentMethodId: intent.paymentMethodId ?? request.paymentMethodId, attempt } };
  // The order was there when the attempt began, and orders are never deleted.
  const settled = (await applyPaymentOutcome(deps, order.id, intent, by, { seen, ownAttempt: { attempts: attempt, startedAt } }).catch((error: unknown) => {
    // The processor has answered, and the order has not taken it (the database away, or the order's
    // row held elsewhere too long): the attempt stays open, for housekeeping to settle after the
    // grace time from the processor's own state of the intent. Named here, as the 503's log line
    // names neither the order nor the intent.
    if (isDatabaseRefusal(error))
      deps.logger.warn("payment.outcome_unapplied", {
        orderId: order.id,
        intentId: intent.id,
        intentStatus: intent.status,
        attempt,
        ...failureOf(error),
      });
    throw error;
  }))!;

  if (outcome.decline)
    throw new DomainError("payment.declined", "Your card was declined.", { code: outcome.decline.code, declineCode: outcome.decline.declineCode });
  return {
    // Paid and kept: money that arrived for an order ended meanwhile went straight back.
    success: outcome.success && settled.paymentStatus === "PAID",
    paymentIntent: {
      id: intent.id,
      status: intent.status,
      clientSecret: intent.clientSecret,
      // 3-D Secure on a page of the processor's: where to send the customer (Stripe.js needs none).
      nextAction: intent.status === "requires_action" && intent.redirectUrl ? { redirectUrl: intent.redirectUrl } : null,
    },
    order: { id: settled.id, orderNumber: settled.orderNumber, paymentStatus: settled.paymentStatus, status: settled.status },
  };
}

/** The order was not free to pay when read: another attempt under way (`anotherAttempt`), or checkout still making its first intent. */
class NotYourTurn extends Error {
  constructor(readonly anotherAttempt: boolean) {
    super("another payment of the order is under way");
  }
}

/**
 * The payments of each order waiting their turn in this process (inTurn), at most `limit` of them
 * (PAYMENT_WAITERS_PER_ORDER): one for the whole process, made with the use cases.
 */
export function createPaymentLine(limit = PAYMENT_WAITERS_PER_ORDER) {
  const waiting = new Map<string, number>();
  return {
    /** A place in the order's line; false when it is full. */
    join(orderId: string): boolean {
      const count = waiting.get(orderId) ?? 0;
      if (count >= limit) return false;
      waiting.set(orderId, count + 1);
      return true;
    },
    leave(orderId: string): void {
      const count = (waiting.get(orderId) ?? 1) - 1;
      if (count > 0) waiting.set(orderId, count);
      else waiting.delete(orderId);
    },
  };
}
export type PaymentLine = ReturnType<typeof createPaymentLine>;

/**
 * `start` tried again after each of PAYMENT_TURN_PAUSES_MS while it finds another attempt under way
 * (or checkout still making the order's first intent): no connection is held meanwhile, so a slow
 * processor keeps none from the other requests. Each try reads the order afresh, and is told
 * whether another attempt was found under way before (`waited`): 409 once the pauses are spent, or
 * at once when the order's `line` is full (null: no limit).
 */
async function inTurn<T>(clock: PayDeps["clock"], line: PaymentLine | null, orderId: string, start: (waited: boolean) => Promise<T>): Promise<T> {
  let waited = false;
  let inLine = false;
  try {
    for (const pause of [...PAYMENT_TURN_PAUSES_MS, null]) {
      try {
        return await start(waited);
      } catch (error) {
        if (!(error instanceof NotYourTurn)) throw error;
        waited ||= error.anotherAttempt;
      }
      if (pause === null) break;
      if (!inLine && line && !line.join(orderId)) break;
      inLine = true;
      await clock.sleep(pause);
    }
    throw paymentInProgress();
  } finally {
    if (inLine) line?.leave(orderId);
  }
}

/**
 * Step 1, in one statement when nothing else writes the order meanwhile: the order read, judged, and
 * the attempt written only if the order is still as read (its version). Otherwise, under its lock.
 * `startedAt`: the attempt's mark; `seen`: the order as step 1 left it, with its version, when that
 * is known.
 */
async function startAttempt(
  deps: PayDeps,
  userId: string,
  orderId: string,
  graceMs: number,
  waited: boolean,
): Promise<{ order: Order; attempt: number; startedAt: Date; seen: OrderAt | undefined }> {
  const read = await deps.uow.read((db) => db.orders.read(orderId));
  if (read) {
    const { order, attempt, changes } = attemptOn(deps, read.order, userId, graceMs, waited);
    const version = await markUnlessChanged(deps, read, changes);
    if (version) return { order, attempt, startedAt: changes.paymentStartedAt, seen: { order: { ...order, ...changes }, version } };
  }
  return deps.uow.transaction(async (tx) => {
    const { order, attempt, changes } = attemptOn(deps, await tx.orders.lock(orderId), userId, graceMs, waited);
    await tx.orders.update(orderId, changes);
    return { order, attempt, startedAt: changes.paymentStartedAt, seen: undefined };
  });
}

/**
 * The attempt's mark, written if the order is still as read: its new version; null when the order
 * changed meanwhile, or when the connection was lost with the statement sent. Then the caller takes
 * the locked way, which runs again a transaction whose connection is lost. A mark that had landed
 * all the same is an attempt under way there (409) until housekeeping settles it, as a commit lost
 * in a transaction leaves it: taken for this request's own, it could be another request's made in
 * the same millisecond, and two attempts would go to the processor.
 */
async function markUnlessChanged(deps: PayDeps, read: OrderAt, changes: ReturnType<typeof attemptOn>["changes"]): Promise<string | null> {
  try {
    return await deps.uow.write((db) => db.orders.updateAt(read.order.id, read.version, changes, null));
  } catch (error) {
    if (isDatabaseUnavailable(error)) return null;
    throw error;
  }
}

/**
 * The caller's own payable order, with no other attempt under way: the attempt it begins, and the
 * order's changes that mark it. NotYourTurn while another attempt is under way. After waiting on
 * one (`waited`), none: whatever that attempt left (a decline, a 3-D Secure challenge the customer
 * is answering, a payment still processing) is the customer's to see before another confirmation,
 * so the payment that overlapped it is 409 (and the customer's next one makes its attempt).
 */
function attemptOn(deps: PayDeps, order: Order | null, userId: string, graceMs: number, waited: boolean) {
  if (!order) throw new DomainError("order.not_found", "Order not found");
  if (order.userId !== userId) throw new DomainError("forbidden", "This order belongs to another user");
  const now = deps.clock.now();
  let attempt: number;
  try {
    ({ attempt } = beginPaymentAttempt(order, now, graceMs));
  } catch (error) {
    if (error instanceof DomainError && error.code === "payment.in_progress") throw new NotYourTurn(order.paymentStartedAt !== null);
    throw error;
  }
  if (waited) throw paymentInProgress();
  return { order, attempt, changes: { paymentAttempts: attempt, paymentStartedAt: now, updatedAt: now } };
}

/** Whether the processor failed without saying what became of the call: it may have done it all the same. */
const outcomeUnknown = (error: unknown) => error instanceof DomainError && error.code === "payment.processor_failed" && error.details?.outcomeUnknown === true;

/**
 * The attempt failed at the processor, changing nothing there the next attempt cannot see: the order
 * is payable again. Only while the mark is still this attempt's: one that waited past the grace time
 * may have been taken over by a newer attempt, whose mark is not this one's to clear (cleared, that
 * attempt's outcome would find no attempt of its own, and a charge would stay unapplied).
 */
function endAttempt(deps: PayDeps, orderId: string, own: AttemptMark): Promise<void> {
  return deps.uow.transaction(async (tx) => {
    const current = await tx.orders.lock(orderId);
    if (current && isMarkedBy(current, own)) await tx.orders.update(orderId, { paymentStartedAt: null, updatedAt: deps.clock.now() });
  });
}
