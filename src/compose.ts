import type { Deps } from "./application/ports.ts";
import type { Config } from "./config.ts";
import { type Db, openDatabase } from "./adapters/db/database.ts";
import { createPgProbe, createPgRepositories, createPgUnitOfWork } from "./adapters/db/store.ts";
import { cuid2Ids, systemClock } from "./adapters/system.ts";

export interface Runtime {
  deps: Deps;
  db: Db;
  /** True for the embedded PGlite database (decides the automatic demo seed). */
  embedded: boolean;
  /** Which adapter serves each port, for the start-up log. */
  adapters: Record<string, string>;
  close(): Promise<void>;
}

/** Picks an adapter for every port from the configuration. */
export function buildRuntime(config: Config): Runtime {
  const { db, description, embedded } = openDatabase(config.database);
  const deps: Deps = {
    ...createPgRepositories(db),
    uow: createPgUnitOfWork(db),
    clock: systemClock,
    ids: cuid2Ids,
    database: createPgProbe(db),
  };
  return {
    deps,
    db,
    embedded,
    adapters: { database: description },
    close: () => db.destroy(),
  };
}
