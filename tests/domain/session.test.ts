import { expect, test } from "bun:test";
import { isSessionLive, newSession } from "../../src/domain/session.ts";

test("a session starts on the whole second, lives 30 days, and ends at expiry or revocation", () => {
  const session = newSession("s1", "u1", new Date("2026-11-22T12:00:05.900Z"));
  expect(session).toEqual({
    id: "s1",
    userId: "u1",
    createdAt: new Date("2026-11-22T12:00:05.000Z"),
    expiresAt: new Date("2026-12-22T12:00:05.000Z"),
    revokedAt: null,
  });
  expect(isSessionLive(session, new Date("2026-12-22T12:00:04.999Z"))).toBe(true);
  expect(isSessionLive(session, new Date("2026-12-22T12:00:05.000Z"))).toBe(false);
  expect(isSessionLive({ ...session, revokedAt: new Date("2026-11-23T00:00:00Z") }, new Date("2026-11-24T00:00:00Z"))).toBe(false);
});
