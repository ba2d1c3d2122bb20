import type { RefundRepository } from "../../application/ports/refunds.ts";
import type { RefundRecord } from "../../domain/refund.ts";

/** Oldest first, as the PostgreSQL adapter lists and claims them. */
function byRequest(a: RefundRecord, b: RefundRecord): number {
  return a.requestedAt.getTime() - b.requestedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function createMemoryRefundRepository(refunds: Map<string, RefundRecord>): RefundRepository {
  const listed = (keep: (r: RefundRecord) => boolean) =>
    [...refunds.values()]
      .filter(keep)
      .sort(byRequest)
      .map((r) => structuredClone(r));
  return {
    async markDue(refund, attemptUntil) {
      if ([...refunds.values()].some((r) => r.idempotencyKey === refund.idempotencyKey)) return null;
      const stored: RefundRecord = {
        ...structuredClone(refund),
        attempts: 1,
        nextAttemptAt: new Date(attemptUntil),
        lastError: null,
        confirmedAt: null,
        processorRefundId: null,
      };
      refunds.set(refund.id, stored);
      return structuredClone(stored);
    },
    async claimDue(now, attemptUntil, limit) {
      const due = [...refunds.values()]
        .filter((r) => r.confirmedAt === null && r.nextAttemptAt.getTime() <= now.getTime())
        .sort(byRequest)
        .slice(0, limit);
      for (const refund of due) {
        refund.attempts += 1;
        refund.nextAttemptAt = new Date(attemptUntil);
      }
      return due.map((r) => structuredClone(r));
    },
    async markConfirmed(id, at, processorRefundId) {
      const refund = refunds.get(id);
      if (!refund || refund.confirmedAt) return false;
      Object.assign(refund, { confirmedAt: new Date(at), processorRefundId, lastError: null });
      return true;
    },
    async confirmAllOf(intentId, at) {
      const due = [...refunds.values()].filter((r) => r.intentId === intentId && r.confirmedAt === null);
      for (const refund of due) Object.assign(refund, { confirmedAt: new Date(at), lastError: null });
      return due.length;
    },
    async markFailed(id, error, retryAt) {
      const refund = refunds.get(id);
      if (refund && !refund.confirmedAt) Object.assign(refund, { lastError: error, nextAttemptAt: new Date(retryAt) });
    },
    async listDue() {
      return listed((r) => r.confirmedAt === null);
    },
    async listOfOrder(orderId) {
      return listed((r) => r.orderId === orderId);
    },
    async orderOfIntent(intentId) {
      return [...refunds.values()].find((r) => r.intentId === intentId)?.orderId ?? null;
    },
  };
}
