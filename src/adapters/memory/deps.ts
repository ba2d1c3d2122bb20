import type { Clock, Deps, Mailer, OutgoingMail } from "../../application/ports.ts";
import { silentLogger } from "../log.ts";
import { createMemoryRateLimitStore } from "../ratelimit/memory-store.ts";
import { cuid2Ids } from "../system.ts";
import { plainHasher } from "./plain-hasher.ts";
import { type MemoryState, createMemoryRepositories, createMemoryUnitOfWork, emptyMemoryState } from "./store.ts";

/** A settable clock for tests. */
export function createFixedClock(start = new Date("2026-11-22T12:00:00Z")): Clock & { set(at: Date): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at;
    },
    advance: (ms) => {
      current = new Date(current.getTime() + ms);
    },
  };
}

/** A mailer that keeps what it was given. */
export function createRecordingMailer(): Mailer & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return { sent, send: async (mail) => void sent.push(structuredClone(mail)) };
}

/** Every port on in-memory fakes; `state` is exposed so tests can arrange and inspect data. */
export function createMemoryDeps(overrides: Partial<Deps> = {}): Deps & { state: MemoryState; clock: ReturnType<typeof createFixedClock> } {
  const state = emptyMemoryState();
  const repos = createMemoryRepositories(state);
  return {
    ...repos,
    uow: createMemoryUnitOfWork(state, repos),
    clock: createFixedClock(),
    ids: cuid2Ids,
    database: { ping: async () => undefined },
    hasher: plainHasher,
    mailer: createRecordingMailer(),
    loginAttempts: createMemoryRateLimitStore(),
    identityProviders: new Map(),
    logger: silentLogger,
    state,
    ...overrides,
  } as Deps & { state: MemoryState; clock: ReturnType<typeof createFixedClock> };
}
