import type { Deps, Repositories } from "../../src/application/ports/index.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { createPgFakeLedger } from "../../src/adapters/db/fake-processor-ledger.ts";
import { createPgRepositories, createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { type FakeProcessor, challengePageAt, createFakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import { cuid2Ids, systemClock } from "../../src/adapters/system.ts";

/**
 * Every repository and transaction on the given database, and the fake processor as the server runs
 * it (its books in the same database, so a CLI or server process started by the test sees its
 * intents); the rest as in unit tests.
 */
export function createPgDeps(db: Db): Deps & { repos: Repositories; processor: FakeProcessor } {
  const { state: _, processor: __, ...rest } = createMemoryDeps();
  const processor = createFakeProcessor(cuid2Ids.next, createPgFakeLedger(db), challengePageAt("http://localhost:3000"));
  return { ...rest, payments: processor, tax: processor, processor, repos: createPgRepositories(db), uow: createPgUnitOfWork(db), clock: systemClock };
}

/** The refunds the fake processor made of a payment, in cents, as its books in the database say. */
export async function fakeRefundsOf(db: Db, intentId: string): Promise<number[]> {
  const rows = await db.selectFrom("fake_processor_refunds").select("amount").where("intent_id", "=", intentId).orderBy("created_at").execute();
  return rows.map((row) => row.amount);
}
