import { expect, spyOn, test } from "bun:test";
import { createBcryptHasher } from "../../src/adapters/crypto/bcrypt-hasher.ts";

test("hashes with bcrypt at cost 12 and verifies only the right password", async () => {
  const hasher = createBcryptHasher(2);
  const hash = await hasher.hash("correct horse");
  expect(hash).toStartWith("$2b$12$");
  expect(await hasher.verify("correct horse", hash)).toBe(true);
  expect(await hasher.verify("wrong horse", hash)).toBe(false);
}, 10_000);

test("runs no more hashes at once than its limit; the rest wait their turn", async () => {
  let running = 0;
  let peak = 0;
  const spy = spyOn(Bun.password, "verify").mockImplementation(async () => {
    peak = Math.max(peak, ++running);
    await Bun.sleep(5);
    running--;
    return true;
  });
  try {
    const hasher = createBcryptHasher(2);
    const results = await Promise.all(Array.from({ length: 7 }, () => hasher.verify("pw", "$2b$12$x")));
    expect(results).toEqual(Array(7).fill(true));
    expect(spy).toHaveBeenCalledTimes(7);
    expect(peak).toBe(2);
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
