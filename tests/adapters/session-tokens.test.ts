import { expect, test } from "bun:test";
import { createSessionTokens } from "../../src/adapters/http/session.ts";
import { createFixedClock } from "../../src/adapters/memory/deps.ts";

const SECRET = "a-session-secret-of-at-least-32-characters";
const user = { id: "u1", email: "ada@example.com", name: "Ada", role: "CUSTOMER" as const };

// Verified tokens are kept to skip checking their signature again: what was kept must still expire,
// and a token that merely resembles a kept one must still be checked.
test("a token verified once is refused once it expires, by the same clock", async () => {
  const clock = createFixedClock();
  const tokens = createSessionTokens(SECRET, clock);
  const issuedAt = clock.now();
  const token = await tokens.issue({ id: "s1", user, issuedAt, expiresAt: new Date(issuedAt.getTime() + 3600_000) });
  expect(await tokens.verify(token)).toMatchObject({ sub: "u1", sid: "s1" });
  clock.advance(3599_000);
  expect(await tokens.verify(token)).toMatchObject({ sub: "u1", sid: "s1" });
  clock.advance(1_000);
  expect(await tokens.verify(token)).toBeNull();
});

test("after a token verified, the same claims under another signature are refused", async () => {
  const clock = createFixedClock();
  const tokens = createSessionTokens(SECRET, clock);
  const issuedAt = clock.now();
  const token = await tokens.issue({ id: "s1", user, issuedAt, expiresAt: new Date(issuedAt.getTime() + 3600_000) });
  const forged = await createSessionTokens("another-secret-of-at-least-32-characters!", clock).issue({
    id: "s1",
    user,
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + 3600_000),
  });
  expect(await tokens.verify(token)).not.toBeNull();
  expect(forged.split(".").slice(0, 2)).toEqual(token.split(".").slice(0, 2));
  expect(await tokens.verify(forged)).toBeNull();
});
