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
/** The most hits and take-backs kept for Redis while it is away: a flood of sign-ins then lets no memory grow without end. */
const MISSED_LIMIT = 10_000;
/** What Redis missed replayed at once on the way back. */
const REPLAY_BATCH = 100;

/** What Redis missed while it was away: a hit counted in memory, a success's reset, a take-back. */
type Missed = (
  | { kind: "hit"; key: string; windowMs: number; at: number; hit: string }
  | { kind: "reset"; key: string; upTo: number }
  | { kind: "takeBack"; key: string; hit: string }
) & { dropped?: boolean };

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
 * logged once, and so is the way back, found by a retry in the background every `retryEveryMs`
 * while degraded, whether requests come or not. Asking for the state (readiness, a metrics scrape)
 * checks Redis in the background too, at most as often: so an instance no request reaches still
 * finds Redis gone, and the state asked next says so. While degraded, each instance counts on its
 * own: fixed windows (the rate limits) stay in memory.
 *
 * A sliding window (the sign-in lockout) loses nothing to an outage:
 * - Memory keeps this instance's own hits, resets and take-backs while Redis answers too, so an
 *   outage starts from what this instance counted, not from nothing: stall after stall, each
 *   instance checks at most five failures of an e-mail in its window, where each stall let five
 *   more in on each instance (found by an attack).
 * - What Redis missed, the hits counted in memory, the successes' resets and the take-backs, is
 *   kept in the order it happened and replayed on the way back (at most MISSED_LIMIT of them),
 *   before Redis counts again: the failures an instance counted while Redis was away count on every
 *   instance once it is back (they were lost, found by an attack). A failure made before a success
 *   on another instance is not counted there, whenever it arrives (the store's resets say so).
 * - A hit taken back before it was replayed is not sent at all, and holds no place in the replay.
 * - A Redis that stalled, restarted with its data or came back through a replica keeps no count
 *   the shop took back. A hit that gave up waiting on Redis was sent all the same, and a frozen
 *   Redis runs it when it thaws: so it is taken back there at once, behind it, and on the way back
 *   too (found by an attack and a review).
 */
export function createFailoverRateLimitStore({
  primary,
  fallback,
  logger,
  timeoutMs = REDIS_WAIT_MS,
  retryEveryMs = 1_000,
  reconnect,
}: FailoverOptions): RateLimitStore & { degraded(): boolean; close(): void } {
  let degraded = false;
  let retrying = false;
  let lastRetry = 0;
  /** While degraded: the retries that run whether requests come or not (an idle instance held a success's reset from Redis, found by an attack). */
  let retryTimer: ReturnType<typeof setInterval> | undefined;
  /** Closed: no retry starts again, whatever fails after (a retry reconnected a client closed behind it, found by a review). */
  let closed = false;
  /**
   * What Redis missed, in the order it happened (with steps dropped since, skipped); of it, by name,
   * the hits and resets not sent yet; and how many steps are still to send.
   */
  let missedLog: Missed[] = [];
  const unsentHits = new Map<string, Missed>();
  const unsentResets = new Map<string, Missed>();
  let missedLive = 0;
  let missedDropped = false;
  const hitName = (key: string, hit: string) => JSON.stringify([key, hit]);

  function drop(entry: Missed) {
    entry.dropped = true;
    missedLive--;
  }

  function missed(entry: Missed) {
    // A success's reset is kept past the limit: only a right password makes one, so a flood of
    // guesses cannot push it out (found by an attack), and one is kept for each key.
    if (missedLive >= MISSED_LIMIT && entry.kind !== "reset") {
      if (!missedDropped) logger.warn("ratelimit.undone_dropped", { limit: MISSED_LIMIT });
      missedDropped = true;
      return;
    }
    if (entry.kind === "hit") unsentHits.set(hitName(entry.key, entry.hit), entry);
    if (entry.kind === "reset") {
      // A later reset of the key clears all an earlier one would, and the hits between them too.
      const earlier = unsentResets.get(entry.key);
      if (earlier) drop(earlier);
      unsentResets.set(entry.key, entry);
    }
    // The steps dropped are skipped, and let go of once they outnumber the rest.
    if (missedLog.length >= 2 * MISSED_LIMIT) missedLog = missedLog.filter((kept) => !kept.dropped);
    missedLog.push(entry);
    missedLive++;
  }

  function send(entry: Missed): Promise<unknown> {
    if (entry.kind === "hit") return primary.hitSliding(entry.key, entry.windowMs, new Date(entry.at), entry.hit);
    if (entry.kind === "reset") return primary.resetSliding(entry.key, new Date(entry.upTo));
    return primary.takeBackSliding(entry.key, entry.hit);
  }

  /**
   * One missed step replayed. An error Redis answered with (a permission refused) drops it, logged:
   * a Redis that refuses one for good would otherwise keep the store on memory for good. A lost
   * connection stops the replay, the batch kept for the next way back (sent again, which is
   * harmless: each step done twice is done once).
   */
  async function replayOne(entry: Missed) {
    try {
      await send(entry);
    } catch (error) {
      if (String((error as { code?: unknown }).code ?? "").startsWith("ERR_REDIS_CONNECTION")) throw error;
      logger.warn("ratelimit.undo_failed", { error: messageOf(error) });
    }
  }

  /**
   * Replays what Redis missed, in batches in the order it happened, until nothing is left (what
   * comes meanwhile too), and then counts on Redis again: in the same step as the last look, so that
   * nothing can come in between, be kept for a replay that has ended, and never reach Redis (found by
   * a review).
   */
  async function replayMissedThenRestore() {
    while (missedLog.length > 0) {
      const batch = missedLog.slice(0, REPLAY_BATCH);
      // Sent from here on: a take-back of one of these hits must reach Redis, behind it.
      for (const entry of batch) {
        if (entry.kind === "hit") unsentHits.delete(hitName(entry.key, entry.hit));
        if (entry.kind === "reset" && unsentResets.get(entry.key) === entry) unsentResets.delete(entry.key);
      }
      // One connection: Redis runs them in the order they are sent.
      const sending = batch.filter((entry) => !entry.dropped);
      await Promise.all(sending.map(replayOne));
      const sent = new Set(batch);
      missedLog = missedLog.filter((entry) => !sent.has(entry));
      missedLive -= sending.length;
    }
    missedDropped = false;
    degraded = false;
    clearInterval(retryTimer);
    logger.info("ratelimit.restored", { to: "redis" });
  }

  function degrade(error: unknown) {
    if (degraded) return;
    degraded = true;
    lastRetry = Date.now();
    logger.error("ratelimit.degraded", { to: "memory", error: messageOf(error) });
    if (closed) return;
    // Each tick retries, whenever a request last asked for one (a request's retry off the beat made
    // the next tick skip: two seconds between retries, found by a review).
    retryTimer = setInterval(() => {
      lastRetry = 0;
      retryInBackground();
    }, retryEveryMs);
    retryTimer.unref?.();
  }

  function retryInBackground() {
    if (closed || retrying || Date.now() - lastRetry < retryEveryMs) return;
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
      if (!degraded) {
        try {
          const count = await within(primary.hitSliding(key, windowMs, now, hit), timeoutMs);
          // This instance's own count, for an outage to start from.
          await fallback.hitSliding(key, windowMs, now, hit);
          return count;
        } catch (error) {
          degrade(error);
          void primary.takeBackSliding(key, hit).catch(() => false);
          missed({ kind: "takeBack", key, hit });
        }
      } else retryInBackground();
      // Counted in memory, and in Redis once it is back.
      missed({ kind: "hit", key, windowMs, at: now.getTime(), hit });
      return fallback.hitSliding(key, windowMs, now, hit);
    },
    countSliding: (key, windowMs, now) => use((store) => store.countSliding(key, windowMs, now)),
    async takeBackSliding(key, hit) {
      const inMemory = await fallback.takeBackSliding(key, hit);
      // A hit counted in memory and not replayed yet: Redis is never sent it.
      const unsent = unsentHits.get(hitName(key, hit));
      if (unsent) {
        drop(unsent);
        unsentHits.delete(hitName(key, hit));
        return true;
      }
      let taken = false;
      await undoInRedis(
        async () => (taken = await primary.takeBackSliding(key, hit)),
        () => missed({ kind: "takeBack", key, hit }),
      );
      return inMemory || taken;
    },
    async resetSliding(key, upTo) {
      await fallback.resetSliding(key, upTo);
      await undoInRedis(
        () => primary.resetSliding(key, upTo),
        () => missed({ kind: "reset", key, upTo: upTo.getTime() }),
      );
    },
    degraded: () => degraded,
    close() {
      closed = true;
      clearInterval(retryTimer);
    },
  };
}
