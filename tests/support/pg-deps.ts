import type { Deps, Repositories } from "../../src/application/ports/index.ts";
import type { Db } from "../../src/adapters/db/database.ts";
import { createPgRepositories, createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { type FakeProcessor, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { systemClock } from "../../src/adapters/system.ts";

/** Every repository and transaction on the given database; the rest (the fake processor too) as in unit tests. */
export function createPgDeps(db: Db): Deps & { repos: Repositories; processor: FakeProcessor } {
  const { state: _, ...rest } = createMemoryDeps();
  return { ...rest, repos: createPgRepositories(db), uow: createPgUnitOfWork(db), clock: systemClock };
}
