import { DomainError, TOO_MANY_REQUESTS } from "../../domain/errors.ts";
import type { PasswordHasher } from "../../application/ports/identity.ts";

/** bcrypt's cost unless BCRYPT_COST says otherwise (production takes no less). */
export const BCRYPT_COST = 12;

/** At most how many password checks may wait for a hashing lane, per lane, however fast checks go. */
const WAITING_PER_LANE = 8;

/** How many checks may wait for `concurrency` lanes unless told otherwise: as many as those check in the wait's bound. */
export const maxWaitingFor = (concurrency: number) => concurrency * WAITING_PER_LANE;

/**
 * The longest a check is let wait for a lane, at the pace of the slow end of the latest checks
 * (decisions §15: a real sign-in during a flood answers within 2 s). With its own check (~300 ms at
 * cost 12 here) and the rest of the request, it answers well inside that, or is told at once to
 * come back. At their mean pace, a machine whose checks slowed under the flood (two cores: the
 * lane, the server and PostgreSQL) let a sign-in wait longer than that: 2.07 and 2.2 s on a slow VM.
 */
const MAX_WAIT_MS = 1_200;
/** How long a check is taken to last until one has been timed (cost 12: some 250–340 ms here). */
const FIRST_GUESS_MS = 300;
/** How many of the latest checks' durations are kept. */
const TIMED_CHECKS = 32;
/** How far back a client's password checks count towards its place in a full line. */
const RECENT_MS = 60_000;
/** At most how many clients' recent checks are kept (the least recently asking go first). */
const CLIENTS_KEPT = 10_000;

const busy = () => new DomainError("auth.busy", "Too many sign-ins at once; please try again in a moment", { retryAfterSeconds: 1 });
const alreadyWaiting = () =>
  new DomainError("auth.check_waiting", TOO_MANY_REQUESTS, { reason: "Another password check from your address is still waiting", retryAfterSeconds: 1 });

/**
 * The latest checks' durations in ms: the slow end of them (the 90th percentile: one outlier, a
 * pause of the collector, say, does not shrink the line for the next 32 checks), or one of them at
 * random; the first guess until one is kept.
 */
function latestDurations() {
  const kept: number[] = [];
  return {
    add(ms: number) {
      if (kept.push(ms) > TIMED_CHECKS) kept.shift();
    },
    slow: () => (kept.length ? kept.toSorted((a, b) => a - b)[Math.floor(0.9 * (kept.length - 1))]! : FIRST_GUESS_MS),
    any: () => kept[Math.floor(Math.random() * kept.length)] ?? FIRST_GUESS_MS,
  };
}

/**
 * How many password checks each client asked for in the last RECENT_MS, before the one it asks for
 * now: `asked` counts it and answers that. A client named by no one counts nothing.
 */
function recentChecks(now: () => number = () => performance.now()) {
  const byClient = new Map<string, { count: number; since: number }>();
  return {
    asked(client: string | undefined): number {
      if (client === undefined) return 0;
      const at = now();
      const seen = byClient.get(client);
      const before = seen && at - seen.since < RECENT_MS ? seen : { count: 0, since: at };
      // Set again, the client goes to the end: the first one is the least recently asking.
      byClient.delete(client);
      byClient.set(client, { count: before.count + 1, since: before.since });
      if (byClient.size > CLIENTS_KEPT) byClient.delete(byClient.keys().next().value!);
      return before.count;
    },
  };
}

/**
 * bcrypt (cost 12) through Bun.password, which hashes on worker threads so the event loop stays free.
 * At most `concurrency` hashes run at once: a burst of sign-ins queues here instead of taking every
 * core from the requests that need no hashing. Only as many wait as the lanes can check within
 * MAX_WAIT_MS at the pace of the slow end of the latest checks (4 a lane at 300 ms; never over `maxWaiting`), so a
 * flood is told at once to come back (503 with Retry-After) instead of queueing without end.
 * The line is fair (decisions §15): a client (as the caller names it) has at most one check in it,
 * and is told to come back for another (429 with Retry-After). And a few clients cannot keep it
 * full: when it is, a check from a client that asked for fewer checks in the last minute takes the
 * place of the waiting one whose client asked for the most (the latest of those to join), which is
 * told to come back (503). So addresses that sign in again and again, even with a password that is
 * right (an account of their own), give way to people who sign in now and then.
 *
 * A check against no hash (decisions §15: no such account, or one without a password) hashes
 * nothing and takes no lane, so a flood of made-up e-mails cannot crowd real sign-ins out. It is
 * refused when a real check would be, puts out of a full line the check a real one would, and
 * otherwise answers false after as long as one of the
 * latest real checks took from asking to answer (drawn at random, so with their spread too):
 * neither its answer nor its timing tells that there is no account. `wait` is how it waits (a
 * test records how long it asks for).
 */
export function createBcryptHasher({
  concurrency,
  maxWaiting = maxWaitingFor(concurrency),
  cost = BCRYPT_COST,
  wait = (ms) => Bun.sleep(ms),
}: {
  concurrency: number;
  maxWaiting?: number;
  cost?: number;
  wait?: (ms: number) => Promise<void>;
}): PasswordHasher {
  let running = 0;
  type Waiting = { client: string | undefined; recent: number; go: () => void; refuse: (error: DomainError) => void };
  const waiting: Waiting[] = [];
  const hashing = latestDurations();
  const answering = latestDurations();
  const checks = recentChecks();

  /** The waiting check whose place a newcomer of `recent` checks takes: of those whose clients asked for more, the one that asked for the most (the latest of those to join). */
  function placeFor(recent: number): Waiting | undefined {
    let most: Waiting | undefined;
    for (const check of waiting) if (check.recent > recent && check.recent >= (most?.recent ?? 0)) most = check;
    return most;
  }

  /**
   * Where a check goes: a lane free now ("run"), or the line ("wait"; given the place of one that
   * gives way, when the line is full); refused when its client has a check in line already, or the
   * line is full of clients that asked for no more than it did. Its client's ask is counted.
   */
  function admit(client: string | undefined): { place: "run" } | { place: "wait"; recent: number; replacing: Waiting | undefined } {
    const recent = checks.asked(client);
    if (running < concurrency) return { place: "run" };
    if (client !== undefined && waiting.some((check) => check.client === client)) throw alreadyWaiting();
    if (waiting.length < Math.min(maxWaiting, Math.floor((concurrency * MAX_WAIT_MS) / hashing.slow()))) return { place: "wait", recent, replacing: undefined };
    const replacing = placeFor(recent);
    if (!replacing) throw busy();
    return { place: "wait", recent, replacing };
  }

  /** Puts out the waiting check whose place a newcomer takes: it is told to come back (503). */
  function putOut(check: Waiting | undefined) {
    if (!check) return;
    waiting.splice(waiting.indexOf(check), 1);
    check.refuse(busy());
  }

  async function limited<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    // A lane is taken here, or handed over by the check leaving it: none can slip in between.
    const admitted = admit(client);
    if (admitted.place === "wait") {
      putOut(admitted.replacing);
      await new Promise<void>((go, refuse) => waiting.push({ client, recent: admitted.recent, go, refuse }));
    } else running++;
    const started = performance.now();
    try {
      return await work();
    } finally {
      hashing.add(performance.now() - started);
      const next = waiting.shift();
      if (next) next.go();
      else running--;
    }
  }

  async function timed(check: () => Promise<boolean>): Promise<boolean> {
    const asked = performance.now();
    const matches = await check();
    answering.add(performance.now() - asked);
    return matches;
  }

  async function imitated(client: string | undefined): Promise<false> {
    // Admitted or refused as a real check would be, and putting out whom a real one would (else the
    // waiting check's 503, or its answer, would tell that there is no account); it takes no lane.
    const admitted = admit(client);
    if (admitted.place === "wait") putOut(admitted.replacing);
    await wait(answering.any());
    return false;
  }

  return {
    hash: (password, client) => limited(client, () => Bun.password.hash(password, { algorithm: "bcrypt", cost })),
    verify: (passwords, hash, client) =>
      hash === null
        ? imitated(client)
        : timed(() =>
            limited(client, async () => {
              for (const password of passwords) if (await Bun.password.verify(password, hash, "bcrypt")) return true;
              return false;
            }),
          ),
  };
}
