import type { Logger, RateLimitStore } from "../../application/ports/system.ts";
import { messageOf } from "../../domain/errors.ts";
import { within } from "../within.ts";

/**
 * The longest a request waits on Redis before memory answers. Redis answers a count in about a
 * millisecond; 150 ms leaves room for a slow moment, and keeps a request that meets a frozen Redis
 * within 300 ms all told on a busy machine (at 250 ms, the rest of such a request went past it).
 */
const REDIS_WAIT_MS = 150;
/** The longest a check in the background (asked for by readiness or a scrape, or the retry while degraded) waits on Redis: no request waits on it. */
const CHECK_WAIT_MS = 1_000;

export interface FailoverOptions {
  primary: RateLimitStore & { ping(): Promise<void> };
  fallback: RateLimitStore;
  logger: Logger;
  /** The longest a request waits on the primary before the fallback answers. */
  timeoutMs?: number;
  /** How often, while degraded, a request tries the primary again (in the background). */
  retryEveryMs?: number;
  /** Run before each retry: reconnects the primary's client when it has given up. */
  reconnect?: () => Promise<void>;
}

/**
 * The primary store (Redis) while it answers, this process's memory while it does not: no request
 * fails for want of Redis, and none waits on it longer than `timeoutMs`. The switch to memory is
 * logged once, and so is the way back, found by a retry in the background at most every
 * `retryEveryMs` while requests come. Asking for the state (readiness, a metrics scrape) checks
 * Redis in the background too, at most as often: so an instance no request reaches still finds
 * Redis gone, and back, and the state asked next says so. Counts made in memory meanwhile stay
 * there: while degraded, each instance counts on its own.
 *
 * A sliding window's hit is named, and what undoes it (its take-back, a reset) goes to both stores,
 * whichever answers now: a hit counted in Redis before an outage is taken back there, one in memory
 * during it there. A command that gave up waiting on Redis was sent all the same, and a frozen Redis
 * runs it when it thaws: so a hit that gave up is taken back in Redis at once, the take-back sent
 * after it to run after it, and no hit lands there unheard to lock an account (found by an attack).
 */
export function createFailoverRateLimitStore({
  primary,
  fallback,
  logger,
  timeoutMs = REDIS_WAIT_MS,
  retryEveryMs = 1_000,
  reconnect,
}: FailoverOptions): RateLimitStore & { degraded(): boolean } {
  let degraded = false;
  let retrying = false;
  let lastRetry = 0;

  function degrade(error: unknown) {
    if (degraded) return;
    degraded = true;
    lastRetry = Date.now();
    logger.error("ratelimit.degraded", { to: "memory", error: messageOf(error) });
  }

  function retryInBackground() {
    if (retrying || Date.now() - lastRetry < retryEveryMs) return;
    retrying = true;
    lastRetry = Date.now();
    void (async () => {
      try {
        // In the background, as a check: a busy moment of this process does not keep the counts in memory.
        await within(
          (reconnect?.() ?? Promise.resolve()).then(() => primary.ping()),
          Math.max(timeoutMs, CHECK_WAIT_MS),
        );
        degraded = false;
        logger.info("ratelimit.restored", { to: "redis" });
      } catch {
        // Still down: the next request after `retryEveryMs` tries again.
      } finally {
        retrying = false;
      }
    })();
  }

  /**
   * While Redis is used: a ping in the background, at most every `retryEveryMs`; no answer within a
   * second is Redis gone. No request waits on it, so it waits longer than a request would: a moment's
   * stall of this process does not send a quiet instance's counts to memory.
   */
  let checking = false;
  let lastCheck = 0;
  function checkInBackground() {
    if (degraded) return retryInBackground();
    if (checking || Date.now() - lastCheck < retryEveryMs) return;
    checking = true;
    lastCheck = Date.now();
    void within(primary.ping(), Math.max(timeoutMs, CHECK_WAIT_MS))
      .catch(degrade)
      .finally(() => (checking = false));
  }

  async function use<T>(operation: (store: RateLimitStore) => Promise<T>): Promise<T> {
    if (degraded) {
      retryInBackground();
      return operation(fallback);
    }
    try {
      return await within(operation(primary), timeoutMs);
    } catch (error) {
      degrade(error);
      return operation(fallback);
    }
  }

  /** `operation` on both stores: memory's awaited, Redis's for as long as a request waits on it (sent all the same, a frozen Redis runs it later). */
  async function onBoth(operation: (store: RateLimitStore) => Promise<void>): Promise<void> {
    await operation(fallback);
    const sent = operation(primary);
    if (degraded) return void sent.catch(() => undefined);
    await within(sent, timeoutMs).catch(degrade);
  }

  return {
    state: () => {
      checkInBackground();
      return degraded ? "fallback" : primary.state();
    },
    increment: (key, windowMs, now) => use((store) => store.increment(key, windowMs, now)),
    reset: (key) => onBoth((store) => store.reset(key)),
    decrement: (key) => use((store) => store.decrement(key)),
    async hitSliding(key, windowMs, now, hit) {
      if (degraded) {
        retryInBackground();
        return fallback.hitSliding(key, windowMs, now, hit);
      }
      try {
        return await within(primary.hitSliding(key, windowMs, now, hit), timeoutMs);
      } catch (error) {
        degrade(error);
        void primary.takeBackSliding(key, hit).catch(() => undefined);
        return fallback.hitSliding(key, windowMs, now, hit);
      }
    },
    takeBackSliding: (key, hit) => onBoth((store) => store.takeBackSliding(key, hit)),
    degraded: () => degraded,
  };
}
