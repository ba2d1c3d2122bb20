import type { PasswordHasher } from "../../application/ports/identity.ts";

export const BCRYPT_COST = 12;

/**
 * bcrypt (cost 12) through Bun.password, which hashes on worker threads so the event loop stays free.
 * At most `concurrency` hashes run at once: a burst of sign-ins queues here instead of taking every
 * core from the requests that need no hashing.
 */
export function createBcryptHasher(concurrency: number): PasswordHasher {
  let running = 0;
  const waiting: Array<() => void> = [];

  async function limited<T>(work: () => Promise<T>): Promise<T> {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
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
