/** A response as it was first given, to give again. */
export interface KeptResponse {
  status: number;
  body: unknown;
}

export type IdempotencyClaim =
  /** The key is this request's now: run it, then keep or release what it answered. */
  | { kind: "claimed" }
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
  keep(userId: string, key: string, response: KeptResponse): Promise<void>;
  /** Gives the key up (the request failed and changed nothing): the next request with it runs. */
  release(userId: string, key: string): Promise<void>;
  /** Deletes expired keys; how many. */
  purgeExpired(now: Date): Promise<number>;
}
