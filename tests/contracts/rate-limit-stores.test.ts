import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { createMemoryRateLimitStore } from "../../src/adapters/ratelimit/memory-store.ts";
import { createRedisRateLimitStore } from "../../src/adapters/ratelimit/redis-store.ts";
import { rateLimitStoreContract } from "./rate-limit-store.contract.ts";

const memory = createMemoryRateLimitStore();
rateLimitStoreContract("memory", () => memory);

// The machine's Redis (as CI's), under a key prefix of this run's own; nothing else is touched.
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
let client: RedisClient;
beforeAll(async () => {
  client = new RedisClient(REDIS_URL, { enableOfflineQueue: false, connectionTimeout: 2_000 });
  await client.connect().catch((error: unknown) => {
    throw new Error(`Redis is not answering at ${REDIS_URL} (start it: .ci/run does, or redis-server --daemonize yes): ${error}`);
  });
});
afterAll(() => client.close());
rateLimitStoreContract("Redis", () => createRedisRateLimitStore(client, `storefront-test:${process.pid}:`));

test("two shops sharing one Redis under their own REDIS_KEY_PREFIX share no counter", async () => {
  const run = `${process.pid}-${Date.now()}`;
  const [north, south] = [createRedisRateLimitStore(client, `north-${run}:`), createRedisRateLimitStore(client, `south-${run}:`)];
  const now = new Date();
  for (let i = 0; i < 3; i++) await north.increment("203.0.113.9 POST /api/auth/callback/credentials", 60_000, now);
  expect((await south.increment("203.0.113.9 POST /api/auth/callback/credentials", 60_000, now)).count).toBe(1);
  expect((await north.increment("203.0.113.9 POST /api/auth/callback/credentials", 60_000, now)).count).toBe(4);
  await client.send("DEL", [`north-${run}:203.0.113.9 POST /api/auth/callback/credentials`, `south-${run}:203.0.113.9 POST /api/auth/callback/credentials`]);
});
