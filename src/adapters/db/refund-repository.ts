import { type Selectable, sql } from "kysely";
import type { RefundRepository } from "../../application/ports/refunds.ts";
import type { RefundReason, RefundRecord } from "../../domain/refund.ts";
import type { Db } from "./database.ts";
import type { RefundsTable } from "./tables.ts";

function toRefund(row: Selectable<RefundsTable>): RefundRecord {
  return {
    id: row.id,
    orderId: row.order_id,
    intentId: row.intent_id,
    idempotencyKey: row.idempotency_key,
    reason: row.reason as RefundReason,
    amount: row.amount_cents,
    requestedAt: row.requested_at,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    confirmedAt: row.confirmed_at,
    processorRefundId: row.processor_refund_id,
  };
}

export function createPgRefundRepository(db: Db): RefundRepository {
  const oldestFirst = () => db.selectFrom("refunds").selectAll().orderBy("requested_at").orderBy("id");
  return {
    async markDue(refund, attemptUntil) {
      const row = await db
        .insertInto("refunds")
        .values({
          id: refund.id,
          order_id: refund.orderId,
          intent_id: refund.intentId,
          idempotency_key: refund.idempotencyKey,
          reason: refund.reason,
          amount_cents: refund.amount,
          requested_at: refund.requestedAt,
          attempts: 1,
          next_attempt_at: attemptUntil,
        })
        // A second transaction owing the same refund waits here on the key, and finds it taken once the first commits.
        .onConflict((oc) => oc.column("idempotency_key").doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toRefund(row) : null;
    },

    async claimDue(now, attemptUntil, limit) {
      // One statement, so the claim lands with the count; skip locked lets another instance take other refunds.
      const rows = await db
        .updateTable("refunds")
        .set({ attempts: sql`attempts + 1`, next_attempt_at: attemptUntil })
        .where("id", "in", (eb) =>
          eb
            .selectFrom("refunds")
            .select("id")
            .where("confirmed_at", "is", null)
            .where("next_attempt_at", "<=", now)
            .orderBy("requested_at")
            .orderBy("id")
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .execute();
      return rows.map(toRefund).sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime() || (a.id < b.id ? -1 : 1));
    },

    async markConfirmed(id, at, processorRefundId) {
      const result = await db
        .updateTable("refunds")
        .set({ confirmed_at: at, processor_refund_id: processorRefundId, last_error: null })
        .where("id", "=", id)
        .where("confirmed_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async confirmAllOf(intentId, at) {
      const result = await db
        .updateTable("refunds")
        .set({ confirmed_at: at, last_error: null })
        .where("intent_id", "=", intentId)
        .where("confirmed_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async markFailed(id, error, retryAt) {
      await db.updateTable("refunds").set({ last_error: error, next_attempt_at: retryAt }).where("id", "=", id).where("confirmed_at", "is", null).execute();
    },

    async listDue() {
      return (await oldestFirst().where("confirmed_at", "is", null).execute()).map(toRefund);
    },

    async listOfOrder(orderId) {
      return (await oldestFirst().where("order_id", "=", orderId).execute()).map(toRefund);
    },

    async orderOfIntent(intentId) {
      const row = await db.selectFrom("refunds").select("order_id").where("intent_id", "=", intentId).limit(1).executeTakeFirst();
      return row?.order_id ?? null;
    },
  };
}
