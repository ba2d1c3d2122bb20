import type { IdempotencyClaim, KeptResponse } from "../ports/idempotency.ts";
import type { Deps } from "../ports/index.ts";

/** Decisions §4: the first answer for a (user, key) pair is kept 24 hours. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60_000;
/** A claim whose request has not answered in this long died with its process; its key may be used again. */
const ABANDONED_AFTER_MS = 5 * 60_000;

type KeyDeps = Pick<Deps, "uow" | "clock">;

/** Claims a key for a request about to run, or says what became of the key's first request. */
export function claimIdempotencyKey(deps: KeyDeps, userId: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
  const now = deps.clock.now();
  return deps.uow.transaction((tx) =>
    tx.idempotency.claim({
      userId,
      key,
      fingerprint,
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS),
      staleBefore: new Date(now.getTime() - ABANDONED_AFTER_MS),
    }),
  );
}

/** Keeps what a claimed request answered, to answer its repeats the same. */
export function keepIdempotentResponse(deps: KeyDeps, userId: string, key: string, claimedAt: Date, response: KeptResponse): Promise<void> {
  return deps.uow.transaction((tx) => tx.idempotency.keep(userId, key, claimedAt, response));
}

/** Frees a claimed key whose request failed without changing anything, so a retry runs it. */
export function releaseIdempotencyKey(deps: KeyDeps, userId: string, key: string, claimedAt: Date): Promise<void> {
  return deps.uow.transaction((tx) => tx.idempotency.release(userId, key, claimedAt));
}
