import type { Deps, Repositories, UnitOfWork } from "../../src/application/ports/index.ts";

/** The same unit of work, but every transaction hands out repositories with `patch` applied: to inject failures. */
export function uowWith(deps: Pick<Deps, "uow">, patch: (tx: Repositories) => Partial<Repositories>): UnitOfWork {
  return {
    transaction: (work) => deps.uow.transaction((tx) => work({ ...tx, ...patch(tx) })),
    read: (work) => deps.uow.read(work),
    write: (work) => deps.uow.write(work),
  };
}
