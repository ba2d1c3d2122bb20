import type { Clock, Deps } from "../../application/ports.ts";
import { cuid2Ids } from "../system.ts";
import { type MemoryState, createMemoryRepositories, createMemoryUnitOfWork, emptyMemoryState } from "./store.ts";

/** A settable clock for tests. */
export function createFixedClock(start = new Date("2026-11-22T12:00:00Z")): Clock & { set(at: Date): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => new Date(current),
    set: (at) => { current = at; },
    advance: (ms) => { current = new Date(current.getTime() + ms); },
  };
}

/** Every port on in-memory fakes; `state` is exposed so tests can arrange and inspect data. */
export function createMemoryDeps(overrides: Partial<Deps> = {}): Deps & { state: MemoryState } {
  const state = emptyMemoryState();
  const repos = createMemoryRepositories(state);
  return {
    ...repos,
    uow: createMemoryUnitOfWork(state, repos),
    clock: createFixedClock(),
    ids: cuid2Ids,
    database: { ping: async () => undefined },
    state,
    ...overrides,
  };
}
