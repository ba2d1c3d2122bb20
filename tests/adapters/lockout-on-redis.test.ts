import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { createRedisRateLimitStore } from "../../src/adapters/ratelimit/redis-store.ts";
import { register } from "../../src/application/auth/register.ts";
import { signInWithPassword } from "../../src/application/auth/sign-in-with-password.ts";
import { eventually } from "../support/eventually.ts";

// The sign-in lockout with its counts in Redis, as instances share them (REDIS_URL): the checks
// running and the failures, which tell a locked-out e-mail (429) from one still being checked (503).
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `storefront-test:${process.pid}:lockout:`;
const origin = { ipAddress: "203.0.113.9", userAgent: "test-agent" };
let client: RedisClient;
beforeAll(async () => {
  client = new RedisClient(REDIS_URL, { enableOfflineQueue: false, connectionTimeout: 2_000 });
  await client.connect();
});
afterAll(async () => {
  const keys = (await client.send("KEYS", [`${prefix}*`])) as string[];
  if (keys.length > 0) await client.send("DEL", keys);
  client.close();
});

async function shopWithAccount(email: string) {
  const deps = createMemoryDeps({ loginAttempts: createRedisRateLimitStore(client, prefix) });
  await register(deps, { email, password: "correct horse" }, origin, "https://shop.example.com");
  return signingIn(deps, email);
}

/** Sign-ins to `email` on the shop of `deps`, each answered by what became of it. */
function signingIn(deps: MemoryDeps, email: string) {
  return (password: string) =>
    signInWithPassword(deps, { email, password }, origin).then(
      () => "signed in",
      (error: { code: string; details?: { retryAfterSeconds?: number } }) => `${error.code} ${error.details?.retryAfterSeconds}`,
    );
}

test("on Redis, a burst at an e-mail locked out by five failures is all 429 for the window, and eight right sign-ins at once lock no one out (found by an attack: 9 of 10 were 503)", async () => {
  for (let round = 0; round < 5; round++) {
    const lockedOut = await shopWithAccount(`locked-${round}@example.com`);
    for (let i = 0; i < 5; i++) expect(await lockedOut(`guess ${i}`)).toBe("auth.invalid_credentials undefined");
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => lockedOut(i % 2 ? "correct horse" : "a guess")))).toEqual(
      Array(10).fill("auth.too_many_attempts 900"),
    );

    const rightAtOnce = await shopWithAccount(`eight-${round}@example.com`);
    const answers = await Promise.all(Array.from({ length: 8 }, () => rightAtOnce("correct horse")));
    expect(answers.filter((answer) => answer !== "signed in").every((answer) => answer === "auth.checks_running 1")).toBe(true);
    expect(answers.filter((answer) => answer === "signed in").length).toBeGreaterThanOrEqual(5);
  }
});

test("on Redis, checks running on one instance are known to another: sign-ins there while five run here are told to come back in a second, not locked out", async () => {
  const here = createMemoryDeps({ loginAttempts: createRedisRateLimitStore(client, prefix) });
  await register(here, { email: "two-instances@example.com", password: "correct horse" }, origin, "https://shop.example.com");
  // The other instance: its own store over the same Redis and keys, and the same accounts.
  const there = { ...here, loginAttempts: createRedisRateLimitStore(client, prefix) };
  const held = Promise.withResolvers<void>();
  let checking = 0;
  const slowHasher = {
    ...here.hasher,
    verify: async (passwords: readonly string[], hash: string | null) => {
      checking++;
      await held.promise;
      return here.hasher.verify(passwords, hash);
    },
  };
  const running = Array.from({ length: 5 }, () => signingIn({ ...here, hasher: slowHasher }, "two-instances@example.com")("correct horse"));
  await eventually(() => expect(checking).toBe(5));
  expect(await Promise.all(Array.from({ length: 3 }, () => signingIn(there, "two-instances@example.com")("correct horse")))).toEqual(
    Array(3).fill("auth.checks_running 1"),
  );
  held.resolve();
  expect(await Promise.all(running)).toEqual(Array(5).fill("signed in"));
  expect(await signingIn(there, "two-instances@example.com")("correct horse")).toBe("signed in");
});
