import { describe, expect, test } from "bun:test";
import type { RateLimitStore } from "../../src/application/ports/system.ts";
import { eventually } from "../support/eventually.ts";

let keys = 0;
const aKey = () => `contract:${process.pid}:${Date.now()}:${++keys}`;

/** What the limiter and the sign-in lockout rely on from a counter store, held to memory and Redis alike. */
export function rateLimitStoreContract(name: string, store: () => RateLimitStore) {
  describe(`RateLimitStore (${name})`, () => {
    test("the first hit starts a window of the given length; later hits count in it", async () => {
      const key = aKey();
      const now = new Date();
      const first = await store().increment(key, 60_000, now);
      expect(first.count).toBe(1);
      expect(Math.abs(first.resetAt.getTime() - (now.getTime() + 60_000))).toBeLessThan(1_000);
      const second = await store().increment(key, 60_000, new Date());
      expect(second.count).toBe(2);
      expect(Math.abs(second.resetAt.getTime() - first.resetAt.getTime())).toBeLessThan(1_000);
    });

    test("keys count apart; peek reads without counting; reset forgets", async () => {
      const [a, b] = [aKey(), aKey()];
      await store().increment(a, 60_000, new Date());
      await store().increment(a, 60_000, new Date());
      await store().increment(b, 60_000, new Date());
      expect((await store().peek(a, new Date()))?.count).toBe(2);
      expect((await store().peek(a, new Date()))?.count).toBe(2);
      expect((await store().peek(b, new Date()))?.count).toBe(1);
      await store().reset(a);
      expect(await store().peek(a, new Date())).toBeNull();
      expect((await store().increment(a, 60_000, new Date())).count).toBe(1);
    });

    test("decrement takes one count back, never below zero, and starts no window", async () => {
      const key = aKey();
      await store().increment(key, 60_000, new Date());
      await store().increment(key, 60_000, new Date());
      await store().decrement(key);
      expect((await store().peek(key, new Date()))?.count).toBe(1);
      await store().decrement(key);
      await store().decrement(key);
      expect((await store().peek(key, new Date()))?.count ?? 0).toBe(0);
      const untouched = aKey();
      await store().decrement(untouched);
      expect(await store().peek(untouched, new Date())).toBeNull();
    });

    test("a window ends: once its time is up the count starts again", async () => {
      const key = aKey();
      await store().increment(key, 150, new Date());
      await store().increment(key, 150, new Date());
      await eventually(async () => expect(await store().peek(key, new Date())).toBeNull(), 3_000);
      expect((await store().increment(key, 150, new Date())).count).toBe(1);
    });

    test("100 hits at once are counted 1 to 100, none lost and none twice", async () => {
      const key = aKey();
      const counts = await Promise.all(Array.from({ length: 100 }, () => store().increment(key, 60_000, new Date())));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });
  });
}
