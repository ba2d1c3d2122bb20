import type { RefundRecord } from "../../domain/refund.ts";

export type NewRefund = Omit<RefundRecord, "attempts" | "nextAttemptAt" | "lastError" | "confirmedAt" | "processorRefundId">;

export interface RefundReader {
  /** Every refund the processor has not confirmed yet, oldest first (the back office shows an order's, by listOfOrder). */
  listDue(): Promise<RefundRecord[]>;
  /** An order's refunds, oldest first. */
  listOfOrder(orderId: string): Promise<RefundRecord[]>;
  /** The order the shop refunded this payment (intent) for, if it ever asked for a refund of it: one it has since replaced, say. */
  orderOfIntent(intentId: string): Promise<string | null>;
}

/** Refunds the shop owes and has made (decisions §14), one per idempotency key. */
export interface RefundRepository extends RefundReader {
  /**
   * Records a refund due, its first attempt counted as begun now and the refund kept from
   * `claimDue` until `attemptUntil`; null, writing nothing, when a refund with its key is recorded
   * already (asked, or made).
   */
  markDue(refund: NewRefund, attemptUntil: Date): Promise<RefundRecord | null>;
  /**
   * Takes up to `limit` unconfirmed refunds due at `now`, oldest first, counts the attempt and
   * keeps them from other claims until `attemptUntil`, so that two instances never ask for the
   * same refund at once and a crashed one's come back. Refunds another transaction holds are passed over.
   */
  claimDue(now: Date, attemptUntil: Date, limit: number): Promise<RefundRecord[]>;
  /** The processor made it: false, changing nothing, when it was confirmed already. */
  markConfirmed(id: string, at: Date, processorRefundId: string | null): Promise<boolean>;
  /** The processor reported the payment refunded in full: every refund of it still due is confirmed. How many. */
  confirmAllOf(intentId: string, at: Date): Promise<number>;
  /** The attempt failed: kept due, with the error, and asked again from `retryAt`. */
  markFailed(id: string, error: string, retryAt: Date): Promise<void>;
}
