import { afterAll, beforeAll } from "bun:test";
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
