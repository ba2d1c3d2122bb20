import { AsyncLocalStorage } from "node:async_hooks";

const insideTransaction = new AsyncLocalStorage<true>();

/**
 * Runs a transaction's work marked as such. Any unit-of-work call made from inside it (a use case
 * reaching for the pool instead of its `tx`) is refused by `refuseInsideTransaction`: on PostgreSQL
 * it would need a second connection while holding one, and a full pool deadlocks.
 */
export function runAsTransaction<T>(work: () => Promise<T>): Promise<T> {
  return insideTransaction.run(true, work);
}

export function refuseInsideTransaction(call: "read" | "transaction" | "write"): void {
  if (insideTransaction.getStore()) {
    throw new Error(`uow.${call}() called inside a transaction: use the repositories the transaction hands out`);
  }
}

/**
 * Decisions §14: no call to a payment processor runs inside a database transaction; it would hold a
 * connection, and the rows it locked, for as long as the processor takes. The built-in fake processor
 * refuses such a call, so every test of every path that pays, refunds or cancels through it proves
 * the rule.
 */
export function refuseProcessorCallInsideTransaction(): void {
  if (insideTransaction.getStore()) throw new Error("a payment processor was called inside a database transaction: call it between transactions");
}
