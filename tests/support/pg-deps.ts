import type { Deps } from "../../src/application/ports.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { createPgRepositories, createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { systemClock } from "../../src/adapters/system.ts";

/** Every repository and transaction on the given database; the rest as in unit tests. */
export function createPgDeps(db: Db): Deps {
  return { ...createMemoryDeps(), ...createPgRepositories(db), uow: createPgUnitOfWork(db), clock: systemClock };
}
