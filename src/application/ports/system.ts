export interface Clock {
  now(): Date;
  /** Resolves after a pause of `ms`, holding nothing (a payment waiting its turn: pay-order.ts). */
  sleep(ms: number): Promise<void>;
}

export interface Ids {
  /** A new CUID2. */
  next(): string;
}

export interface DatabaseProbe {
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  /** The migrations this code has that the database has not run, by name, oldest first (none: the schema is current). */
  pendingMigrations(): Promise<string[]>;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = Record<LogLevel, (event: string, fields?: Record<string, unknown>) => void>;

export interface WindowCount {
  count: number;
  resetAt: Date;
}

/**
 * Where a store keeps its counts now: in Redis, in this process's memory (as configured), or in
 * memory while the Redis it is configured with does not answer (`fallback`: each instance counts
 * on its own).
 */
export type RateLimitStoreState = "redis" | "memory" | "fallback";

/** The counts behind the limits: fixed windows (the rate limit), sliding windows of named hits (the sign-in lockout). */
export interface RateLimitStore {
  state(): RateLimitStoreState;
  increment(key: string, windowMs: number, now: Date): Promise<WindowCount>;
  /**
   * A hit at `now` in the key's sliding window, named `hit` (unique) to take it back by: each hit
   * counts for `windowMs` after it. How many there are now, this one included. The sign-in
   * lockout's "5 in 15 minutes", which a fixed window let through twice over across its end.
   */
  hitSliding(key: string, windowMs: number, now: Date, hit: string): Promise<number>;
  /** How many of the key's sliding hits count at `now` (each for `windowMs` after it), adding none. */
  countSliding(key: string, windowMs: number, now: Date): Promise<number>;
  /**
   * Takes back a hit (one that turned out not to happen): that one, not another request's, which
   * may have come since. True when it was there; nothing is done if it is gone (forgotten, or
   * never in this store).
   */
  takeBackSliding(key: string, hit: string): Promise<boolean>;
  /**
   * Forgets the key's sliding hits made at or before `upTo` (a success clears the failures before
   * it): one that arrives late, after a stall, leaves the hits made since. A hit made before it that
   * arrives after it (an instance's failures sent to Redis when it came back) is not counted; one of
   * the same millisecond is.
   */
  resetSliding(key: string, upTo: Date): Promise<void>;
}

/** Randomness for what must be unpredictable but is not an id (order-number suffixes). */
export interface Random {
  /** A uniform whole number in [0, below). */
  below(below: number): number;
}
