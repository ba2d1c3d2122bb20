import type { Session } from "../../domain/session.ts";
import type { SessionRepository } from "../../application/ports/identity.ts";

export function createMemorySessionRepository(sessions: Map<string, Session>): SessionRepository {
  return {
    async findById(id) {
      const session = sessions.get(id);
      return session ? structuredClone(session) : null;
    },
    async create(session) {
      sessions.set(session.id, structuredClone(session));
    },
    async revoke(id, at) {
      const session = sessions.get(id);
      if (!session || session.revokedAt) return false;
      session.revokedAt = new Date(at);
      return true;
    },
    async purgeEnded(now, limit) {
      let purged = 0;
      for (const [id, session] of sessions) {
        if (purged >= limit) break;
        if (session.revokedAt === null && session.expiresAt > now) continue;
        sessions.delete(id);
        purged++;
      }
      return purged;
    },
    async revokeAllOf(userId, at) {
      let revoked = 0;
      for (const session of sessions.values()) {
        if (session.userId !== userId || session.revokedAt) continue;
        session.revokedAt = new Date(at);
        revoked++;
      }
      return revoked;
    },
  };
}
