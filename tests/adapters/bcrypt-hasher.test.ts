import { expect, spyOn, test } from "bun:test";
import { createBcryptHasher } from "../../src/adapters/crypto/bcrypt-hasher.ts";
import { settled } from "../support/settled.ts";

test("hashes with bcrypt at cost 12 and verifies only the right password", async () => {
  const hasher = createBcryptHasher({ concurrency: 2 });
  const hash = await hasher.hash("correct horse");
  expect(hash).toStartWith("$2b$12$");
  expect(await hasher.verify(["correct horse"], hash)).toBe(true);
  expect(await hasher.verify(["wrong horse"], hash)).toBe(false);
  // The forms one typed password may have been kept in, tried in one check.
  expect(await hasher.verify(["wrong horse", "correct horse"], hash)).toBe(true);
}, 10_000);

test("at another cost (BCRYPT_COST), new hashes record it, and a hash made at the old cost still verifies", async () => {
  const cheaper = createBcryptHasher({ concurrency: 2, cost: 4 });
  const hash = await cheaper.hash("correct horse");
  expect(hash).toStartWith("$2b$04$");
  expect(await cheaper.verify(["correct horse"], hash)).toBe(true);
  expect(await cheaper.verify(["correct horse"], await createBcryptHasher({ concurrency: 2 }).hash("correct horse"))).toBe(true);
}, 10_000);

test("runs no more hashes at once than its limit; the rest wait their turn", async () => {
  // Each hash runs until the test ends it, so how many run at once is seen, not hoped for.
  const hashes: Array<PromiseWithResolvers<boolean>> = [];
  const spy = spyOn(Bun.password, "verify").mockImplementation(() => {
    const hash = Promise.withResolvers<boolean>();
    hashes.push(hash);
    return hash.promise;
  });
  try {
    const hasher = createBcryptHasher({ concurrency: 2 });
    const results = Promise.all(Array.from({ length: 7 }, () => hasher.verify(["pw"], "$2b$12$x")));
    for (let ended = 0; ended < 7; ended++) {
      await settled();
      expect({ ended, running: hashes.length - ended }).toEqual({ ended, running: Math.min(2, 7 - ended) });
      hashes[ended]!.resolve(true);
    }
    expect(await results).toEqual(Array(7).fill(true));
    expect(spy).toHaveBeenCalledTimes(7);
  } finally {
    spy.mockRestore();
  }
});

test("past its bound of waiting checks, a check is refused at once (auth.busy, retry after 1 s) instead of queueing", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => (await held, true));
  try {
    const hasher = createBcryptHasher({ concurrency: 1, maxWaiting: 2 });
    const admitted = Array.from({ length: 3 }, () => hasher.verify(["pw"], "$2b$12$x"));
    // Refused while the admitted checks are still held: had it queued, this answer would never come.
    const refused = await hasher.verify(["pw"], "$2b$12$x").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "auth.busy", message: "Too many sign-ins at once; please try again in a moment", details: { retryAfterSeconds: 1 } });
    release();
    expect(await Promise.all(admitted)).toEqual([true, true, true]);
    expect(await hasher.verify(["pw"], "$2b$12$x")).toBe(true);
  } finally {
    spy.mockRestore();
  }
});

test("a check against no hash (no such account, or no password) runs no bcrypt and takes no lane: a real check gets in however many are in flight", async () => {
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => true);
  try {
    // One lane and no room to wait: had a check of no hash taken the lane, the real one would be refused.
    const hasher = createBcryptHasher({ concurrency: 1, maxWaiting: 0 });
    const noHash = Array.from({ length: 20 }, () => hasher.verify(["guess"], null));
    expect(await hasher.verify(["pw"], "$2b$12$x")).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(await Promise.all(noHash)).toEqual(Array(20).fill(false));
  } finally {
    spy.mockRestore();
  }
});

test("a check against no hash waits as long as one of the real checks before it took, so its answer cannot tell that no account is there", async () => {
  // Checks of 40 ms, far from the 300 ms assumed before any is timed: the wait follows what was measured.
  // What the imitation asks to wait is asserted, not how long the machine then took to wake it: under
  // load a timer fires late, for a real check as for an imitated one.
  const spy = spyOn(Bun.password, "verify").mockImplementation(() => new Promise((answer) => setTimeout(() => answer(false), 40)));
  const asked: number[] = [];
  try {
    const hasher = createBcryptHasher({ concurrency: 1, wait: (ms) => (asked.push(ms), Bun.sleep(ms)) });
    const timed = async (hash: string | null) => {
      const started = performance.now();
      expect(await hasher.verify(["guess"], hash)).toBe(false);
      return performance.now() - started;
    };
    const real = [await timed("$2b$12$x"), await timed("$2b$12$x"), await timed("$2b$12$x")];
    const imitated = [await timed(null), await timed(null), await timed(null)];
    expect(spy).toHaveBeenCalledTimes(3);
    expect(asked).toHaveLength(3);
    for (const [i, ms] of asked.entries()) {
      // One of the real checks' durations as the hasher timed them: at least the check's 40 ms, at most what the test saw.
      expect(ms).toBeGreaterThanOrEqual(39);
      expect(ms).toBeLessThanOrEqual(Math.max(...real));
      expect(imitated[i]!).toBeGreaterThanOrEqual(ms - 1);
    }
  } finally {
    spy.mockRestore();
  }
});

test("a check against no hash is refused whenever a real one would be (the line full), so a refusal tells nothing either", async () => {
  const held = Promise.withResolvers<boolean>();
  const spy = spyOn(Bun.password, "verify").mockImplementation(() => held.promise);
  try {
    const hasher = createBcryptHasher({ concurrency: 1, maxWaiting: 1 });
    const admitted = [hasher.verify(["pw"], "$2b$12$x"), hasher.verify(["pw"], "$2b$12$x")];
    expect(await hasher.verify(["guess"], null).catch((error: unknown) => error)).toMatchObject({ code: "auth.busy", details: { retryAfterSeconds: 1 } });
    held.resolve(true);
    expect(await Promise.all(admitted)).toEqual([true, true]);
  } finally {
    spy.mockRestore();
  }
});

test("the line is fair: a client whose check is waiting is refused another (auth.check_waiting, retry after 1 s); other clients still join", async () => {
  const held = Promise.withResolvers<boolean>();
  const spy = spyOn(Bun.password, "verify").mockImplementation(() => held.promise);
  try {
    const hasher = createBcryptHasher({ concurrency: 1 });
    const inLane = hasher.verify(["pw"], "$2b$12$x", "198.51.100.1");
    const waiting = hasher.verify(["pw"], "$2b$12$x", "203.0.113.1");
    for (const refused of [
      hasher.verify(["pw"], "$2b$12$x", "203.0.113.1"),
      hasher.verify(["pw"], null, "203.0.113.1"),
      hasher.hash("new password", "203.0.113.1"),
    ]) {
      expect(await refused.catch((error: unknown) => error)).toMatchObject({
        code: "auth.check_waiting",
        message: "Rate limit exceeded. Please try again later.",
        details: { reason: "Another password check from your address is still waiting", retryAfterSeconds: 1 },
      });
    }
    // A check in a lane is not waiting: its client may still put one in line, as may any other client.
    const alsoWaiting = [hasher.verify(["pw"], "$2b$12$x", "198.51.100.1"), hasher.verify(["pw"], "$2b$12$x", "203.0.113.2")];
    held.resolve(true);
    expect(await Promise.all([inLane, waiting, ...alsoWaiting])).toEqual([true, true, true, true]);
    expect(await hasher.verify(["pw"], "$2b$12$x", "203.0.113.1")).toBe(true);
  } finally {
    spy.mockRestore();
  }
});

/**
 * With the lane held (`hold` makes every check wait on the promise it returns), `count` checks get
 * in, one checking and the rest waiting, and the next is refused at once; let go, all of them pass.
 */
async function expectAdmits(hasher: ReturnType<typeof createBcryptHasher>, count: number, hold: () => PromiseWithResolvers<boolean>) {
  const held = hold();
  const lined = Array.from({ length: count }, () => hasher.verify(["pw"], "$2b$12$x"));
  expect(await hasher.verify(["pw"], "$2b$12$x").catch((error: unknown) => error)).toMatchObject({ code: "auth.busy" });
  held.resolve(true);
  expect(await Promise.all(lined)).toEqual(Array(count).fill(true));
}

test("the line holds no more than can be checked in about 1.2 s at the latest checks' pace, so an admitted sign-in answers within 2 s", async () => {
  let held: PromiseWithResolvers<boolean> | null = Promise.withResolvers<boolean>();
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => (held ? held.promise : true));
  try {
    // Before any check is timed, one is taken to last 300 ms: one lane has room for 4 waiting.
    const slow = createBcryptHasher({ concurrency: 1 });
    const admitted = Array.from({ length: 5 }, () => slow.verify(["pw"], "$2b$12$x"));
    expect(await slow.verify(["pw"], "$2b$12$x").catch((error: unknown) => error)).toMatchObject({ code: "auth.busy" });
    held.resolve(true);
    expect(await Promise.all(admitted)).toEqual(Array(5).fill(true));

    // Checks that take next to nothing leave room up to the bound (8 a lane).
    held = null;
    const fast = createBcryptHasher({ concurrency: 1 });
    for (let i = 0; i < 3; i++) await fast.verify(["pw"], "$2b$12$x");
    await expectAdmits(fast, 9, () => (held = Promise.withResolvers<boolean>()));
  } finally {
    spy.mockRestore();
  }
});

test("one slow check among the latest does not shorten the line: it is sized at their slow end (the 90th percentile), not at the slowest", async () => {
  let held: PromiseWithResolvers<boolean> | null = null;
  let pause = 0;
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => {
    if (pause) await Bun.sleep(pause);
    return held ? held.promise : true;
  });
  try {
    const hasher = createBcryptHasher({ concurrency: 1 });
    for (let i = 0; i < 10; i++) await hasher.verify(["pw"], "$2b$12$x");
    // A pause of the collector, say: one check of 400 ms (at that pace, one lane has room for 3).
    pause = 400;
    await hasher.verify(["pw"], "$2b$12$x");
    pause = 0;
    await expectAdmits(hasher, 9, () => (held = Promise.withResolvers<boolean>()));
  } finally {
    spy.mockRestore();
  }
});

test("a full line gives way to clients that check now and then: a newcomer takes the place of the waiting check whose client asked for the most in the last minute (503 for it); equals do not", async () => {
  let held: PromiseWithResolvers<boolean> | null = null;
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => (held ? held.promise : true));
  try {
    const hasher = createBcryptHasher({ concurrency: 1, maxWaiting: 2 });
    const check = (client: string) => hasher.verify(["pw"], "$2b$12$x", client);
    // Two addresses that signed in again and again (three and two checks so far), as a flood of one account of its own would.
    for (const client of ["198.51.100.3", "198.51.100.3", "198.51.100.3", "198.51.100.2", "198.51.100.2"]) expect(await check(client)).toBe(true);
    held = Promise.withResolvers<boolean>();
    const inLane = check("198.51.100.9");
    const [busiest, busy] = [check("198.51.100.3"), check("198.51.100.2")];
    const refusal = (answer: Promise<boolean>) =>
      answer.then(
        () => "checked",
        (error: { code?: string }) => error.code,
      );

    // The line is full (2): a client new to it takes the place of the busiest address's check, then of the other's.
    const first = check("203.0.113.1");
    expect(await refusal(busiest)).toBe("auth.busy");
    const second = check("203.0.113.2");
    expect(await refusal(busy)).toBe("auth.busy");
    // Now full of clients that asked for no more than a newcomer: it is refused, as before.
    expect(await refusal(check("203.0.113.3"))).toBe("auth.busy");

    held.resolve(true);
    expect(await Promise.all([inLane, first, second])).toEqual([true, true, true]);
    expect(spy).toHaveBeenCalledTimes(8);
  } finally {
    spy.mockRestore();
  }
});

test("into a full line, a check against no hash puts out whom a real one would: the waiting check's fate tells nothing of whether the account exists", async () => {
  /** A client that signs in often waits in a full line; a quieter one asks about an e-mail: what becomes of each. */
  async function probe(hash: string | null) {
    let held: PromiseWithResolvers<boolean> | null = null;
    const spy = spyOn(Bun.password, "verify").mockImplementation(async () => (held ? held.promise : true));
    try {
      const hasher = createBcryptHasher({ concurrency: 1, maxWaiting: 1, wait: async () => {} });
      for (let i = 0; i < 3; i++) await hasher.verify(["pw"], "$2b$12$own", "198.51.100.7");
      held = Promise.withResolvers<boolean>();
      const inLane = hasher.verify(["pw"], "$2b$12$own", "198.51.100.8");
      const outcome = (answer: Promise<boolean>) =>
        answer.then(
          () => "answered",
          (error: { code?: string }) => error.code,
        );
      const frequent = outcome(hasher.verify(["pw"], "$2b$12$own", "198.51.100.7"));
      const asked = outcome(hasher.verify(["guess"], hash, "203.0.113.5"));
      // Put out at once, or still waiting: what the frequent client sees while the lane is held.
      await settled();
      const frequentFate = await Promise.race([frequent, Promise.resolve("waiting")]);
      held.resolve(false);
      await Promise.all([inLane, frequent]);
      return { frequent: frequentFate, asked: await asked };
    } finally {
      spy.mockRestore();
    }
  }
  const [account, none] = [await probe("$2b$12$victim"), await probe(null)];
  expect(account).toEqual({ frequent: "auth.busy", asked: "answered" });
  expect(none).toEqual(account);
});
