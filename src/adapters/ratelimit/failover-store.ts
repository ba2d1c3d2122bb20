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
/** The most undos kept for Redis while it is away: a flood of sign-ins then lets no memory grow without end. */
const UNDONE_LIMIT = 10_000;
/** Undos replayed at once on the way back. */
const REPLAY_BATCH = 100;

export interface FailoverOptions {
  primary: RateLimitStore & { probe(): Promise<void> };
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
 * What undoes a sliding window's hits (a take-back by the hit's name, a success's reset up to its
 * time) reaches the store that counted them: memory at once; Redis at once while it answers, and
 * while it does not, once it is back: the way back replays what it missed first (at most
 * UNDONE_LIMIT of them), so a Redis that stalled, restarted with its data or came back through a
 * replica keeps no count the shop took back. A hit that gave up waiting on Redis was sent all the
 * same, and a frozen Redis runs it when it thaws: so it is taken back there at once, behind it, and
 * on the way back too (found by an attack and a review).
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
  /** What Redis missed while away: resets (the latest time for each key) and take-backs (by key and hit). */
  const missedResets = new Map<string, number>();
  const missedTakeBacks = new Map<string, { key: string; hit: string }>();
  let undoneDropped = false;

  function missed(undo: { reset: string; upTo: number } | { takeBack: string; hit: string }) {
    if ("reset" in undo && missedResets.has(undo.reset)) {
      missedResets.set(undo.reset, Math.max(missedResets.get(undo.reset)!, undo.upTo));
      return;
    }
    if (missedResets.size + missedTakeBacks.size >= UNDONE_LIMIT) {
      if (!undoneDropped) logger.warn("ratelimit.undone_dropped", { limit: UNDONE_LIMIT });
      undoneDropped = true;
      return;
    }
    if ("reset" in undo) missedResets.set(undo.reset, undo.upTo);
    else missedTakeBacks.set(JSON.stringify([undo.takeBack, undo.hit]), { key: undo.takeBack, hit: undo.hit });
  }

  /**
   * One undo replayed, and forgotten once done (unless a newer one of the key came meanwhile). An
   * error Redis answered with (a permission refused) drops it, logged: a Redis that refuses one undo
   * for good would otherwise keep the store on memory for good. A lost connection stops the replay,
   * what is left kept for the next way back.
   */
  async function replayOne(send: () => Promise<unknown>, forget: () => void) {
    try {
      await send();
    } catch (error) {
      if (String((error as { code?: unknown }).code ?? "").startsWith("ERR_REDIS_CONNECTION")) throw error;
      logger.warn("ratelimit.undo_failed", { error: messageOf(error) });
    }
    forget();
  }

  /**
   * Replays what Redis missed, in batches, until nothing is left (undos that come meanwhile too),
   * and then counts on Redis again: in the same step as the last look, so that no undo can come in
   * between, be kept for a replay that has ended, and never reach Redis (found by a review).
   */
  async function replayMissedThenRestore() {
    while (missedResets.size + missedTakeBacks.size > 0) {
      const resets = [...missedResets].slice(0, REPLAY_BATCH);
      const takeBacks = [...missedTakeBacks].slice(0, REPLAY_BATCH - resets.length);
      await Promise.all([
        ...resets.map(([key, upTo]) =>
          replayOne(
            () => primary.resetSliding(key, new Date(upTo)),
            () => missedResets.get(key) === upTo && missedResets.delete(key),
          ),
        ),
        ...takeBacks.map(([entry, { key, hit }]) =>
          replayOne(
            () => primary.takeBackSliding(key, hit),
            () => missedTakeBacks.delete(entry),
          ),
        ),
      ]);
    }
    undoneDropped = false;
    degraded = false;
    logger.info("ratelimit.restored", { to: "redis" });
  }

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
        // In the background: a busy moment of this process may take the reconnection past a request's
        // wait. The probe itself must answer within half of it: a Redis slower than a request waits
        // was found "back" every second and given up at the next count, each time logged, and one
        // just under it too, its counts queuing past the wait where the one probe did not (found by
        // two attacks).
        await within(reconnect?.() ?? Promise.resolve(), Math.max(timeoutMs, CHECK_WAIT_MS));
        await within(primary.probe(), timeoutMs / 2);
        // Before Redis counts again, as long as it takes (a Redis that froze again holds it, and the
        // store stays on memory). `retrying` holds the next retry back until this one ends, but for
        // the rest of a batch a lost connection cut short: those may still be under way when the
        // next replay sends them again, which is harmless, as removing a hit twice removes it once.
        await replayMissedThenRestore();
      } catch {
        // Still down: the next request after `retryEveryMs` tries again.
      } finally {
        retrying = false;
      }
    })();
  }

  /**
   * While Redis is used: a write in the background (probe), at most every `retryEveryMs`; no
   * answer within a second is Redis gone. No request waits on it, so it waits longer than a request
   * would: a moment's stall of this process does not send a quiet instance's counts to memory. (The
   * way back asks more: an answer within half a request's wait.)
   */
  let checking = false;
  let lastCheck = 0;
  function checkInBackground() {
    if (degraded) return retryInBackground();
    if (checking || Date.now() - lastCheck < retryEveryMs) return;
    checking = true;
    lastCheck = Date.now();
    void within(primary.probe(), Math.max(timeoutMs, CHECK_WAIT_MS))
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

  /** An undo sent to Redis while it answers, for as long as a request waits on it; kept for the way back when it is away or does not answer. */
  async function undoInRedis(send: () => Promise<unknown>, keep: () => void) {
    if (degraded) return keep();
    await within(send(), timeoutMs).catch((error: unknown) => {
      degrade(error);
      keep();
    });
  }

  return {
    state: () => {
      checkInBackground();
      return degraded ? "fallback" : primary.state();
    },
    increment: (key, windowMs, now) => use((store) => store.increment(key, windowMs, now)),
    async hitSliding(key, windowMs, now, hit) {
      if (degraded) {
        retryInBackground();
        return fallback.hitSliding(key, windowMs, now, hit);
      }
      try {
        return await within(primary.hitSliding(key, windowMs, now, hit), timeoutMs);
      } catch (error) {
        degrade(error);
        void primary.takeBackSliding(key, hit).catch(() => false);
        missed({ takeBack: key, hit });
        return fallback.hitSliding(key, windowMs, now, hit);
      }
    },
    countSliding: (key, windowMs, now) => use((store) => store.countSliding(key, windowMs, now)),
    async takeBackSliding(key, hit) {
      // A hit counted in memory was never Redis's (one that gave up there is taken back on its own).
      if (await fallback.takeBackSliding(key, hit)) return true;
      let taken = false;
      await undoInRedis(
        async () => (taken = await primary.takeBackSliding(key, hit)),
        () => missed({ takeBack: key, hit }),
      );
      return taken;
    },
    async resetSliding(key, upTo) {
      await fallback.resetSliding(key, upTo);
      await undoInRedis(
        () => primary.resetSliding(key, upTo),
        () => missed({ reset: key, upTo: upTo.getTime() }),
      );
    },
    degraded: () => degraded,
  };
}
