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

    test("keys count apart", async () => {
      const [a, b] = [aKey(), aKey()];
      await store().increment(a, 60_000, new Date());
      await store().increment(a, 60_000, new Date());
      expect((await store().increment(b, 60_000, new Date())).count).toBe(1);
      expect((await store().increment(a, 60_000, new Date())).count).toBe(3);
      expect((await store().increment(b, 60_000, new Date())).count).toBe(2);
    });

    test("a window ends: once its time is up the count starts again", async () => {
      const key = aKey();
      await store().increment(key, 150, new Date());
      await store().increment(key, 150, new Date());
      // Polling counts too, so the window is over when a hit is the first again.
      await eventually(async () => expect((await store().increment(key, 150, new Date())).count).toBe(1), 3_000);
    });

    test("100 hits at once are counted 1 to 100, none lost and none twice", async () => {
      const key = aKey();
      const counts = await Promise.all(Array.from({ length: 100 }, () => store().increment(key, 60_000, new Date())));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    describe("a sliding window (the sign-in lockout's)", () => {
      // The hits' times are given, as the shop's clock gives them: each counts for the window after it.
      const t0 = Date.now();
      const at = (ms: number) => new Date(t0 + ms);

      let hits = 0;
      const aHit = () => `hit-${++hits}`;

      test("each hit counts for the window after it, and no longer", async () => {
        const key = aKey();
        expect(await store().hitSliding(key, 60_000, at(0), aHit())).toBe(1);
        expect(await store().hitSliding(key, 60_000, at(50_000), aHit())).toBe(2);
        // The first stops counting at 60 s; the second still counts until 110 s.
        expect(await store().hitSliding(key, 60_000, at(60_000), aHit())).toBe(2);
        expect(await store().hitSliding(key, 60_000, at(109_999), aHit())).toBe(3);
        expect(await store().hitSliding(key, 60_000, at(170_000), aHit())).toBe(1);
      });

      test("takeBackSliding takes back the hit named, not one that came since; resetSliding to the latest forgets them all; keys count apart", async () => {
        const [a, b] = [aKey(), aKey()];
        await store().hitSliding(a, 60_000, at(0), aHit());
        const taken = aHit();
        await store().hitSliding(a, 60_000, at(1_000), taken);
        await store().hitSliding(a, 60_000, at(1_500), aHit());
        expect(await store().takeBackSliding(a, taken)).toBe(true);
        expect(await store().takeBackSliding(a, taken)).toBe(false);
        expect(await store().hitSliding(a, 60_000, at(2_000), aHit())).toBe(3);
        expect(await store().hitSliding(b, 60_000, at(2_000), aHit())).toBe(1);
        await store().resetSliding(a, at(2_000));
        expect(await store().hitSliding(a, 60_000, at(3_000), aHit())).toBe(1);
        // A hit this store never had (taken back after a failover) takes nothing.
        expect(await store().takeBackSliding(a, "never-here")).toBe(false);
        expect(await store().hitSliding(a, 60_000, at(4_000), aHit())).toBe(2);
      });

      test("countSliding counts the hits that count at its time, adding none; keys count apart", async () => {
        const [key, other] = [aKey(), aKey()];
        expect(await store().countSliding(key, 60_000, at(0))).toBe(0);
        for (const ms of [0, 30_000, 50_000]) await store().hitSliding(key, 60_000, at(ms), aHit());
        await store().hitSliding(other, 60_000, at(0), aHit());
        expect(await store().countSliding(key, 60_000, at(50_000))).toBe(3);
        expect(await store().countSliding(key, 60_000, at(50_000))).toBe(3);
        // The first hit counts for 60 s after it, and no longer.
        expect(await store().countSliding(key, 60_000, at(59_999))).toBe(3);
        expect(await store().countSliding(key, 60_000, at(60_000))).toBe(2);
        expect(await store().countSliding(key, 60_000, at(110_000))).toBe(0);
        expect(await store().countSliding(other, 60_000, at(1_000))).toBe(1);
      });

      test("resetSliding forgets the hits made up to its time, and keeps those made since (a success's reset that arrives late)", async () => {
        const key = aKey();
        for (const ms of [0, 1_000, 2_000]) await store().hitSliding(key, 60_000, at(ms), aHit());
        await store().hitSliding(key, 60_000, at(3_000), aHit());
        await store().resetSliding(key, at(2_000));
        expect(await store().hitSliding(key, 60_000, at(4_000), aHit())).toBe(2);
        await store().resetSliding(aKey(), at(4_000));
      });

      test("a hit made before a reset that arrives after it is not counted (an instance's failures sent on Redis's way back, after a success on another); one made after it is", async () => {
        const key = aKey();
        await store().hitSliding(key, 60_000, at(1_000), aHit());
        await store().resetSliding(key, at(3_000));
        await store().resetSliding(key, at(2_000));
        expect(await store().hitSliding(key, 60_000, at(2_500), aHit())).toBe(0);
        expect(await store().hitSliding(key, 60_000, at(2_999), aHit())).toBe(0);
        // One of the reset's own millisecond counts: it may have come after the success.
        expect(await store().hitSliding(key, 60_000, at(3_000), aHit())).toBe(1);
        expect(await store().countSliding(key, 60_000, at(4_000))).toBe(1);
      });

      test("50 hits at once, in the same millisecond, are counted 1 to 50, none lost and none twice", async () => {
        const key = aKey();
        const counts = await Promise.all(Array.from({ length: 50 }, () => store().hitSliding(key, 60_000, at(0), aHit())));
        expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      });
    });
  });
}
