/** A response as it was first given, to give again. */
export interface KeptResponse {
  status: number;
  body: unknown;
}

export type IdempotencyClaim =
  /** The key is this request's now: run it, then keep or release what it answered, naming the claim by when it was made. */
  | { kind: "claimed"; claimedAt: Date }
  /** The key's first request ran to the end: answer as it did. */
  | { kind: "replay"; response: KeptResponse }
  /** The key's first request is still running. */
  | { kind: "in_flight" }
  /** The key was used with another request. */
  | { kind: "mismatch" };

/**
 * Idempotency keys (decisions §4), one set per user. A key is claimed before its request runs and
 * holds the response afterwards until it expires. A claim whose request never finished (its
 * process died) may be taken over once it is older than `staleBefore`.
 */
export interface IdempotencyKeys {
  claim(input: { userId: string; key: string; fingerprint: string; now: Date; expiresAt: Date; staleBefore: Date }): Promise<IdempotencyClaim>;
  /** Keeps the response of the claim made at `claimedAt`; a claim taken over since (it was stale) is left alone. */
  keep(userId: string, key: string, claimedAt: Date, response: KeptResponse): Promise<void>;
  /** Gives the claim made at `claimedAt` up (its request failed and changed nothing): the next request with the key runs. */
  release(userId: string, key: string, claimedAt: Date): Promise<void>;
  /** Deletes expired keys; how many. */
  purgeExpired(now: Date): Promise<number>;
}
