import { describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import { newSession } from "../../src/domain/session.ts";
import { aUser } from "../support/builders.ts";
import type { ContractTarget } from "./targets.ts";

const start = new Date("2026-03-01T09:00:00.750Z");
const later = new Date("2026-03-02T10:00:00.000Z");

export function sessionRepositoryContract(target: () => ContractTarget) {
  describe("SessionRepository", () => {
    const repo = () => target().repos.sessions;

    async function sessionsOf(count: number) {
      const user = aUser();
      await target().repos.users.create(user);
      const sessions = Array.from({ length: count }, () => newSession(cuid2Ids.next(), user.id, start));
      for (const session of sessions) await repo().create(session);
      return { user, sessions };
    }

    test("a created session reads back whole, starting on a whole second and lasting 30 days", async () => {
      const {
        sessions: [session],
      } = await sessionsOf(1);
      expect(await repo().findById(session!.id)).toEqual({
        id: session!.id,
        userId: session!.userId,
        createdAt: new Date("2026-03-01T09:00:00.000Z"),
        expiresAt: new Date("2026-03-31T09:00:00.000Z"),
        revokedAt: null,
      });
      expect(await repo().findById("no-such-session")).toBeNull();
    });

    test("revoke ends one session once; the others of the user live on", async () => {
      const {
        sessions: [one, two],
      } = await sessionsOf(2);
      expect(await repo().revoke(one!.id, later)).toBe(true);
      expect(await repo().revoke(one!.id, new Date("2026-03-03T00:00:00Z"))).toBe(false);
      expect(await repo().revoke("no-such-session", later)).toBe(false);
      expect((await repo().findById(one!.id))?.revokedAt).toEqual(later);
      expect((await repo().findById(two!.id))?.revokedAt).toBeNull();
    });

    test("purgeEnded deletes expired and revoked sessions, and only those", async () => {
      const {
        sessions: [live, revoked, expiring],
      } = await sessionsOf(3);
      await repo().revoke(revoked!.id, later);
      expect(await repo().purgeEnded(later, 100)).toBe(1);
      expect(await repo().findById(revoked!.id)).toBeNull();
      expect(await repo().findById(live!.id)).not.toBeNull();
      expect(await repo().purgeEnded(expiring!.expiresAt, 100)).toBe(2);
      expect(await repo().findById(live!.id)).toBeNull();
    });

    test("purgeEnded deletes at most as many sessions as it is asked to, the next call the rest", async () => {
      const { sessions } = await sessionsOf(3);
      await repo().revoke(sessions[0]!.id, later);
      const ended = sessions[0]!.expiresAt;
      expect(await repo().purgeEnded(ended, 2)).toBe(2);
      expect(await repo().purgeEnded(ended, 2)).toBe(1);
      expect(await repo().purgeEnded(ended, 2)).toBe(0);
    });

    test("revokeAllOf ends every live session of that user only, and counts them", async () => {
      const mine = await sessionsOf(3);
      const theirs = await sessionsOf(1);
      await repo().revoke(mine.sessions[0]!.id, start);
      expect(await repo().revokeAllOf(mine.user.id, later)).toBe(2);
      for (const session of mine.sessions) expect((await repo().findById(session.id))?.revokedAt).not.toBeNull();
      expect((await repo().findById(mine.sessions[0]!.id))?.revokedAt).toEqual(start);
      expect((await repo().findById(theirs.sessions[0]!.id))?.revokedAt).toBeNull();
      expect(await repo().revokeAllOf(mine.user.id, later)).toBe(0);
    });
  });
}
