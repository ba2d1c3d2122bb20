import { expect, spyOn, test } from "bun:test";
import { createBcryptHasher } from "../../src/adapters/crypto/bcrypt-hasher.ts";
import { settled } from "../support/settled.ts";

test("hashes with bcrypt at cost 12 and verifies only the right password", async () => {
  const hasher = createBcryptHasher(2);
  const hash = await hasher.hash("correct horse");
  expect(hash).toStartWith("$2b$12$");
  expect(await hasher.verify("correct horse", hash)).toBe(true);
  expect(await hasher.verify("wrong horse", hash)).toBe(false);
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
    const hasher = createBcryptHasher(2);
    const results = Promise.all(Array.from({ length: 7 }, () => hasher.verify("pw", "$2b$12$x")));
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
    const hasher = createBcryptHasher(1, 2);
    const admitted = Array.from({ length: 3 }, () => hasher.verify("pw", "$2b$12$x"));
    // Refused while the admitted checks are still held: had it queued, this answer would never come.
    const refused = await hasher.verify("pw", "$2b$12$x").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "auth.busy", message: "Too many sign-ins at once; please try again in a moment", details: { retryAfterSeconds: 1 } });
    release();
    expect(await Promise.all(admitted)).toEqual([true, true, true]);
    expect(await hasher.verify("pw", "$2b$12$x")).toBe(true);
  } finally {
    spy.mockRestore();
  }
});
