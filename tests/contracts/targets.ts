import { afterAll, beforeAll, beforeEach } from "bun:test";
import type { Repositories, UnitOfWork } from "../../src/application/ports/index.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { createPgRepositories, createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { createMemoryRepositories, createMemoryUnitOfWork, emptyMemoryState } from "../../src/adapters/memory/store.ts";
import { createPgliteDatabase, createTestDatabase } from "../support/postgres.ts";

/** One adapter family under contract: repositories, their transactions, and a way to empty them. */
export interface ContractTarget {
  repos: Repositories;
  uow: UnitOfWork;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function openMemoryTarget(): Promise<ContractTarget> {
  let state = emptyMemoryState();
  const target: ContractTarget = {
    repos: createMemoryRepositories(state),
    uow: createMemoryUnitOfWork(state, createMemoryRepositories(state)),
    async reset() {
      state = emptyMemoryState();
      target.repos = createMemoryRepositories(state);
      target.uow = createMemoryUnitOfWork(state, target.repos);
    },
    close: async () => undefined,
  };
  return target;
}

function kyselyTarget(db: Db, reset: () => Promise<void>, close: () => Promise<void>): ContractTarget {
  return { repos: createPgRepositories(db), uow: createPgUnitOfWork(db), reset, close };
}

export async function openPostgresTarget(): Promise<ContractTarget> {
  const database = await createTestDatabase();
  return kyselyTarget(database.db, database.truncate, database.drop);
}

export async function openPgliteTarget(): Promise<ContractTarget> {
  const database = await createPgliteDatabase();
  return kyselyTarget(database.db, database.truncate, database.close);
}

/** Opens the target once for the file, empties it before every test; contracts read it through the getter. */
export function useContractTarget(open: () => Promise<ContractTarget>): () => ContractTarget {
  let target: ContractTarget | undefined;
  beforeAll(async () => {
    target = await open();
  });
  beforeEach(async () => {
    await target?.reset();
  });
  afterAll(async () => {
    await target?.close();
  });
  return () => {
    if (!target) throw new Error("contract target is not open");
    return target;
  };
}
