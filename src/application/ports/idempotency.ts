/** A response as it was first given, to give again. */
export interface KeptResponse {
  status: number;
  body: unknown;
}

export type IdempotencyClaim =
  /** The key is this request's now: run it, then keep or release what it answered, naming the claim by when it was made. */
  | { kind: "claimed"; claimedAt: Date }
  /**
   * The key's first request made this order and has not answered (it may still be finishing, or
   * its process died): the request answers that order instead of running again, and keeps the
   * answer under the first request's claim.
   */
  | { kind: "order_made"; claimedAt: Date; orderId: string }
  /** The key's first request ran to the end: answer as it did. */
  | { kind: "replay"; response: KeptResponse }
  /** The key's first request is still running. */
  | { kind: "in_flight" }
  /** The key was used with another request. */
  | { kind: "mismatch" };

/** A key a request holds while it runs, and the order its first request made under it, if one did. */
export interface HeldKey {
  key: string;
  claimedAt: Date;
  orderId: string | null;
}

/**
 * Idempotency keys (decisions §4), one set per user. A key is claimed before its request runs and
 * holds the response afterwards until it expires. A checkout records the order it makes under its
 * key in its own transaction (decisions §15), so a crash between its commit and its answer leaves
 * the key answering that order. A claim whose request never finished (its process died) and made
 * no order may be taken over once it is older than `staleBefore`.
 */
export interface IdempotencyKeys {
  claim(input: { userId: string; key: string; fingerprint: string; now: Date; expiresAt: Date; staleBefore: Date }): Promise<IdempotencyClaim>;
  /** Records the order the claim made at `claimedAt` made; a claim taken over since is left alone. */
  recordOrder(userId: string, key: string, claimedAt: Date, orderId: string): Promise<void>;
  /** Keeps the response of the claim made at `claimedAt`; a claim taken over since is left alone. */
  keep(userId: string, key: string, claimedAt: Date, response: KeptResponse): Promise<void>;
  /**
   * Gives the claim made at `claimedAt` up (its request failed and changed nothing): the next
   * request with the key runs. A claim that made an order is not given up: its key answers the order.
   */
  release(userId: string, key: string, claimedAt: Date): Promise<void>;
  /** Gives up the unanswered claims that made this order, which was undone: the next request with their key runs again. */
  forgetOrder(orderId: string): Promise<void>;
  /** Deletes up to `limit` of the expired keys; how many. */
  purgeExpired(now: Date, limit: number): Promise<number>;
}
