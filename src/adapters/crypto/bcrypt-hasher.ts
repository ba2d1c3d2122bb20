import { DomainError } from "../../domain/errors.ts";
import type { PasswordHasher } from "../../application/ports/identity.ts";

export const BCRYPT_COST = 12;

/**
 * How many password checks may wait for a hashing lane, per lane. A bcrypt at cost 12 takes some
 * 250 ms here, so the last one waits about 2 s: more would only make every sign-in slow.
 */
export const WAITING_PER_LANE = 8;

/** How long a check is taken to last until one has been timed (cost 12: some 250–340 ms here). */
const FIRST_GUESS_MS = 300;
/** How many of the latest checks' durations a check against no hash draws its wait from. */
const TIMED_CHECKS = 32;

const busy = () => new DomainError("auth.busy", "Too many sign-ins at once; please try again in a moment", { retryAfterSeconds: 1 });
const alreadyWaiting = () =>
  new DomainError("auth.check_waiting", "Another password check from your address is still waiting; please try again in a moment", { retryAfterSeconds: 1 });

/**
 * bcrypt (cost 12) through Bun.password, which hashes on worker threads so the event loop stays free.
 * At most `concurrency` hashes run at once: a burst of sign-ins queues here instead of taking every
 * core from the requests that need no hashing; and at most `concurrency × WAITING_PER_LANE` wait,
 * so a flood is told at once to come back (503 with Retry-After) instead of queueing without end.
 * The line is fair (decisions §15): a client (as the caller names it) has at most one check in it,
 * and is told to come back for another (429 with Retry-After), so a few clients cannot fill it.
 *
 * A check against no hash (decisions §15: no such account, or one without a password) hashes
 * nothing and takes no lane, so a flood of made-up e-mails cannot crowd real sign-ins out. It is
 * refused when a real check would be, and otherwise answers false after as long as one of the
 * latest real checks took from asking to answer (drawn at random, so with their spread too):
 * neither its answer nor its timing tells that there is no account.
 */
export function createBcryptHasher(concurrency: number, maxWaiting = concurrency * WAITING_PER_LANE): PasswordHasher {
  let running = 0;
  const waiting: Array<{ client: string | undefined; go: () => void }> = [];
  const durations: number[] = [];

  /** Refuses a check the line has no room for, or whose client has one in it already; true when it must wait for a lane. */
  function mustWait(client: string | undefined): boolean {
    if (running < concurrency) return false;
    if (client !== undefined && waiting.some((check) => check.client === client)) throw alreadyWaiting();
    if (waiting.length >= maxWaiting) throw busy();
    return true;
  }

  async function limited<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    // A lane is taken here, or handed over by the check leaving it: none can slip in between.
    if (mustWait(client)) await new Promise<void>((go) => waiting.push({ client, go }));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next.go();
      else running--;
    }
  }

  async function timed(check: () => Promise<boolean>): Promise<boolean> {
    const started = performance.now();
    const matches = await check();
    if (durations.push(performance.now() - started) > TIMED_CHECKS) durations.shift();
    return matches;
  }

  async function imitated(client: string | undefined): Promise<false> {
    mustWait(client);
    await Bun.sleep(durations[Math.floor(Math.random() * durations.length)] ?? FIRST_GUESS_MS);
    return false;
  }

  return {
    hash: (password, client) => limited(client, () => Bun.password.hash(password, { algorithm: "bcrypt", cost: BCRYPT_COST })),
    verify: (password, hash, client) => (hash === null ? imitated(client) : timed(() => limited(client, () => Bun.password.verify(password, hash, "bcrypt")))),
  };
}
