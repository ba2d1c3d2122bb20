import { expect, test } from "bun:test";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { register } from "../../src/application/auth/register.ts";
import { signInWithPassword } from "../../src/application/auth/sign-in-with-password.ts";
import { signOut } from "../../src/application/auth/sign-out.ts";
import { claimIdempotencyKey, keepIdempotentResponse } from "../../src/application/idempotency/idempotency-keys.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";

test("housekeeping deletes the sessions that have ended, signed out or expired, and keeps the live ones working", async () => {
  const deps = createMemoryDeps();
  const user = await register(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN, "https://shop.example.com");
  const signIn = () => signInWithPassword(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN);
  const [out, old] = [await signIn(), await signIn()];
  await signOut(deps, { id: out.id, userId: user.id }, false, NO_ORIGIN);
  deps.clock.advance(29 * 24 * 3600 * 1000);
  const live = await signIn();
  deps.clock.advance(2 * 24 * 3600 * 1000);
  const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  expect(await housekeeping.runOnce()).toEqual({ ordersExpired: 0, sessionsPurged: 2, idempotencyKeysPurged: 0 });
  expect([...deps.state.sessions.keys()]).toEqual([live.id]);
  expect(await createAccessResolver(deps).resolve({ sub: user.id, sid: live.id })).not.toBeNull();
  expect(await createAccessResolver(deps).resolve({ sub: user.id, sid: old.id })).toBeNull();
});

test("housekeeping deletes idempotency keys past their 24 hours, and only those", async () => {
  const deps = createMemoryDeps();
  const user = await register(deps, { email: "ada@example.com", password: "correct horse" }, NO_ORIGIN, "https://shop.example.com");
  const old = await claimIdempotencyKey(deps, user.id, "old", "A");
  await keepIdempotentResponse(deps, user.id, "old", (old as { claimedAt: Date }).claimedAt, { status: 200, body: {} });
  deps.clock.advance(23 * 3600 * 1000);
  const young = await claimIdempotencyKey(deps, user.id, "young", "A");
  await keepIdempotentResponse(deps, user.id, "young", (young as { claimedAt: Date }).claimedAt, { status: 200, body: {} });
  deps.clock.advance(3600 * 1000);
  const housekeeping = createHousekeeping(deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 });
  expect((await housekeeping.runOnce()).idempotencyKeysPurged).toBe(1);
  expect(await claimIdempotencyKey(deps, user.id, "young", "A")).toEqual({ kind: "replay", response: { status: 200, body: {} } });
  expect(await claimIdempotencyKey(deps, user.id, "old", "B")).toMatchObject({ kind: "claimed" });
});

test("the access cache forgets what it has not used for 30 seconds, so it never grows past the callers of the last half minute", async () => {
  const deps = createMemoryDeps();
  const access = createAccessResolver(deps);
  for (let i = 0; i < 1_500; i++) {
    await access.resolve({ sub: `user-${i}`, sid: `session-${i}` });
    deps.clock.advance(100);
  }
  // 1,500 callers over 150 seconds; at most the last ~1,000 can still be cached (pruned every 1,000 lookups).
  expect(access.stats().sessions).toBeLessThanOrEqual(1_000);
  expect(access.stats().sessions).toBeGreaterThan(0);
});
