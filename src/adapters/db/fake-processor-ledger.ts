import { type Transaction, sql } from "kysely";
import type { PaymentIntent, Refund } from "../../application/ports/payments.ts";
import type { FakeBook, FakeLedger } from "../payments/fake-processor.ts";
import { refuseProcessorCallInsideTransaction } from "../transaction-scope.ts";
import type { Db } from "./database.ts";
import type { Database } from "./tables.ts";

function bookOf(trx: Transaction<Database>): FakeBook {
  return {
    async intent(id) {
      const row = await trx.selectFrom("fake_processor_intents").select("intent").where("id", "=", id).forUpdate().executeTakeFirst();
      return row ? (row.intent as PaymentIntent) : null;
    },
    async saveIntent(intent) {
      const json = JSON.stringify(intent);
      await trx
        .insertInto("fake_processor_intents")
        .values({ id: intent.id, intent: json })
        .onConflict((conflict) => conflict.column("id").doUpdateSet({ intent: json }))
        .execute();
    },
    async refundedOf(intentId) {
      const { total } = await trx
        .selectFrom("fake_processor_refunds")
        .select(sql<string>`coalesce(sum(amount), 0)`.as("total"))
        .where("intent_id", "=", intentId)
        .executeTakeFirstOrThrow();
      return Number(total);
    },
    async saveRefund(refund: Refund) {
      await trx.insertInto("fake_processor_refunds").values({ id: refund.id, intent_id: refund.intentId, amount: refund.amount }).execute();
    },
  };
}

/**
 * The fake processor's books in the shop's database: every instance, the CLI and a restarted server
 * see the same intents. A key's runs are serialized by the row that claims it, so two instances
 * confirming with one key at once confirm once.
 */
export function createPgFakeLedger(db: Db): FakeLedger {
  return {
    run: (work) => {
      refuseProcessorCallInsideTransaction();
      return db.transaction().execute((trx) => work(bookOf(trx)));
    },
    once: <T>(key: string, work: (book: FakeBook) => Promise<T>) => {
      refuseProcessorCallInsideTransaction();
      return db.transaction().execute(async (trx) => {
        // The key is claimed by its row: a second run of it waits on the first's row until that one
        // commits (and then finds its answer) or rolls back (and then claims the key itself).
        const claimed = await trx
          .insertInto("fake_processor_replays")
          .values({ idempotency_key: key, answer: "null" })
          .onConflict((conflict) => conflict.column("idempotency_key").doNothing())
          .returning("idempotency_key")
          .executeTakeFirst();
        if (!claimed) {
          const kept = await trx.selectFrom("fake_processor_replays").select("answer").where("idempotency_key", "=", key).executeTakeFirstOrThrow();
          return kept.answer as T;
        }
        const answer = await work(bookOf(trx));
        await trx
          .updateTable("fake_processor_replays")
          .set({ answer: JSON.stringify(answer) })
          .where("idempotency_key", "=", key)
          .execute();
        return answer;
      });
    },
  };
}
