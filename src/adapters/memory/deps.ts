import type { Deps, Repositories } from "../../application/ports/index.ts";
import type { Mailer, OutgoingMail } from "../../application/ports/mail.ts";
import type { Clock } from "../../application/ports/system.ts";
import { commonPasswords } from "../crypto/common-passwords.ts";
import { silentLogger } from "../log.ts";
import { createMemoryRateLimitStore } from "../ratelimit/memory-store.ts";
import { challengePageAt, createFakeProcessor } from "../payments/fake-processor.ts";
import { createMemoryFakeLedger } from "./fake-processor-ledger.ts";
import { cryptoRandom, cuid2Ids } from "../system.ts";
import { type MemoryMetrics, createMemoryMetrics } from "./metrics.ts";
import { plainHasher } from "./plain-hasher.ts";
import { type MemoryState, createMemoryRepositories, createMemoryUnitOfWork, emptyMemoryState } from "./store.ts";

export type FixedClock = Clock & { set(at: Date): void; advance(ms: number): void };

/** A settable clock for tests. Its time stands still: a pause only lets the other work waiting run first. */
export function createFixedClock(start = new Date("2026-11-22T12:00:00Z")): FixedClock {
  let current = start;
  return {
    now: () => new Date(current),
    sleep: () => new Promise((resolve) => setTimeout(resolve, 0)),
    set: (at) => {
      current = at;
    },
    advance: (ms) => {
      current = new Date(current.getTime() + ms);
    },
  };
}

/** A mailer that keeps what it was given. */
function createRecordingMailer(): Mailer & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    async send(mail) {
      sent.push(structuredClone(mail));
      return { messageId: `msg-${sent.length}` };
    },
  };
}

/** The fake processor with its books in memory, which a test may read. */
export type FakeProcessor = ReturnType<typeof createMemoryFakeProcessor>;

/**
 * `publicUrl` is where its 3-D Secure challenge page is served (the shop's PUBLIC_URL); `now`, the
 * time its events are kept and due by (a test's clock).
 */
export function createMemoryFakeProcessor(publicUrl = "http://localhost:3000", now: () => number = Date.now) {
  const ledger = createMemoryFakeLedger(now);
  return { ...createFakeProcessor(cuid2Ids.next, ledger, challengePageAt(publicUrl)), intents: ledger.intents, refunds: ledger.refunds };
}

export type MemoryDeps = Deps & {
  clock: FixedClock;
  /** The same fake as `payments` and `tax`, with its test hooks. */
  processor: FakeProcessor;
  /** The tables, for tests to arrange and inspect. */
  state: MemoryState;
  /** The repositories outside any transaction, for tests to arrange and inspect through. */
  repos: Repositories;
  metrics: MemoryMetrics;
};

/** Every port on in-memory fakes. */
export function createMemoryDeps(overrides: Partial<Deps> = {}): MemoryDeps {
  const state = emptyMemoryState();
  const repos = createMemoryRepositories(state);
  const clock = createFixedClock();
  const processor = createMemoryFakeProcessor(undefined, () => clock.now().getTime());
  return {
    uow: createMemoryUnitOfWork(state, repos),
    clock,
    ids: cuid2Ids,
    random: cryptoRandom,
    database: { ping: async () => undefined, pendingMigrations: async () => [] },
    hasher: plainHasher,
    commonPasswords,
    mailer: createRecordingMailer(),
    payments: processor,
    tax: processor,
    processor,
    loginAttempts: createMemoryRateLimitStore(),
    rateLimits: createMemoryRateLimitStore(),
    identityProviders: new Map(),
    logger: silentLogger,
    metrics: createMemoryMetrics(),
    state,
    repos,
    ...overrides,
  } as MemoryDeps;
}
