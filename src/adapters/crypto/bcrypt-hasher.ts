import { DomainError } from "../../domain/errors.ts";
import type { PasswordHasher } from "../../application/ports/identity.ts";

export const BCRYPT_COST = 12;

/**
 * How many password checks may wait for a hashing lane, per lane. A bcrypt at cost 12 takes some
 * 250 ms here, so the last one waits about 2 s: more would only make every sign-in slow.
 */
export const WAITING_PER_LANE = 8;

const busy = () => new DomainError("auth.busy", "Too many sign-ins at once; please try again in a moment", { retryAfterSeconds: 1 });

/**
 * bcrypt (cost 12) through Bun.password, which hashes on worker threads so the event loop stays free.
 * At most `concurrency` hashes run at once: a burst of sign-ins queues here instead of taking every
 * core from the requests that need no hashing; and at most `concurrency × WAITING_PER_LANE` wait,
 * so a flood is told at once to come back (503 with Retry-After) instead of queueing without end.
 */
export function createBcryptHasher(concurrency: number, maxWaiting = concurrency * WAITING_PER_LANE): PasswordHasher {
  let running = 0;
  const waiting: Array<() => void> = [];

  async function limited<T>(work: () => Promise<T>): Promise<T> {
    if (running >= concurrency) {
      if (waiting.length >= maxWaiting) throw busy();
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  return {
    hash: (password) => limited(() => Bun.password.hash(password, { algorithm: "bcrypt", cost: BCRYPT_COST })),
    verify: (password, hash) => limited(() => Bun.password.verify(password, hash, "bcrypt")),
  };
}
