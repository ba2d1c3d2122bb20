import type { RedisClient } from "bun";
import type { RateLimitStore, WindowCount } from "../../application/ports/system.ts";

// Increment and expiry in one round trip, atomic in Redis: the first hit of a window starts its
// clock; a key that somehow lost its expiry gets one again instead of counting forever.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// A sliding window's hits as a sorted set scored by their time: the hits that no longer count
// dropped, this one added (its member unique), and the count. A hit made before the key's last
// reset (KEYS[2]), arriving after it, is not added.
const HIT_SLIDING = `
local resetUpTo = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(ARGV[1]) >= resetUpTo then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('ZCARD', KEYS[1])`;

// A reset: the hits up to its time dropped, and its time kept (the latest of the key's resets) for
// the hits made before it that arrive after it.
const RESET_SLIDING = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local resetUpTo = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(ARGV[1]) > resetUpTo then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2]) end`;

/** How long a reset's time is kept: longer than any window of the shop's (the lockout's 15 minutes) and any outage it replays after. */
const RESET_KEPT_MS = 60 * 60 * 1000;

// The failover store's check that Redis takes the counts: a write, by a script.
const PROBE = "return redis.call('SET', KEYS[1], '1', 'PX', 60000)";

const sha1 = (script: string) => new Bun.CryptoHasher("sha1").update(script).digest("hex");
const SCRIPTS = {
  increment: { source: INCREMENT, sha: sha1(INCREMENT) },
};

/**
 * Fixed-window counters and sliding windows' hits in Redis, shared by every instance: each
 * operation one round trip (a fixed window's Lua script by its hash, sent whole once when Redis
 * does not know it yet; a sliding hit's always whole). Keys live under `prefix`.
 */
export function createRedisRateLimitStore(client: RedisClient, prefix: string): RateLimitStore & { probe(): Promise<void> } {
  async function run(script: keyof typeof SCRIPTS, key: string, args: string[] = []): Promise<unknown> {
    const { source, sha } = SCRIPTS[script];
    try {
      return await client.send("EVALSHA", [sha, "1", prefix + key, ...args]);
    } catch (error) {
      if (!String(error).includes("NOSCRIPT")) throw error;
      return client.send("EVAL", [source, "1", prefix + key, ...args]);
    }
  }
  const resetKey = (key: string) => `${prefix}${key}|reset`;
  const windowOf = (reply: unknown, now: Date): WindowCount => {
    const [count, ttl] = reply as [number, number];
    return { count: Number(count), resetAt: new Date(now.getTime() + Number(ttl)) };
  };
  return {
    state: () => "redis",
    async increment(key, windowMs, now) {
      return windowOf(await run("increment", key, [String(windowMs)]), now);
    },
    // Sent whole (EVAL), in one command, never as EVALSHA then EVAL: a take-back sent after a hit
    // that gave up waiting must run after it, and a Redis that does not know the script yet (just
    // restarted) would run the EVAL after the take-back (found by a test).
    async hitSliding(key, windowMs, now, hit) {
      return Number(await client.send("EVAL", [HIT_SLIDING, "2", prefix + key, resetKey(key), String(now.getTime()), String(windowMs), hit]));
    },
    async countSliding(key, windowMs, now) {
      // The hits scored after the window's start, as HIT_SLIDING keeps them (`(` excludes the bound).
      return Number(await client.send("ZCOUNT", [prefix + key, `(${now.getTime() - windowMs}`, "+inf"]));
    },
    async takeBackSliding(key, hit) {
      return Number(await client.send("ZREM", [prefix + key, hit])) > 0;
    },
    async resetSliding(key, upTo) {
      await client.send("EVAL", [RESET_SLIDING, "2", prefix + key, resetKey(key), String(upTo.getTime()), String(RESET_KEPT_MS)]);
    },
    // A write, not a PING: a Redis that answers but takes no writes (a replica, out of memory) is
    // no store, and a PING found it "back" every few seconds (found by an attack). Made by a script,
    // as the counts are: one whose user may write but not run scripts (an ACL) is no store either,
    // and a plain SET found it back every second, to give it up at the next count (found by an attack).
    async probe() {
      await client.send("EVAL", [PROBE, "1", `${prefix}alive`]);
    },
  };
}
