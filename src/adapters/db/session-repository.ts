import type { Selectable } from "kysely";
import type { Session } from "../../domain/session.ts";
import type { SessionRepository } from "../../application/ports/identity.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import type { SessionsTable } from "./tables.ts";

const toSession = (row: Selectable<SessionsTable>): Session => ({
  id: row.id,
  userId: row.user_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

// Read whenever an instance meets a session it has not cached yet, so compiled once (see compile-once.ts).
const byId = compileOnce((db, id: string) => db.selectFrom("sessions").selectAll().where("id", "=", id));

export function createPgSessionRepository(db: Db): SessionRepository {
  return {
    async findById(id) {
      const [row] = await byId(db, id);
      return row ? toSession(row) : null;
    },
    async create(s) {
      await db
        .insertInto("sessions")
        .values({ id: s.id, user_id: s.userId, created_at: s.createdAt, expires_at: s.expiresAt, revoked_at: s.revokedAt })
        .execute();
    },
    async revoke(id, at) {
      const result = await db.updateTable("sessions").set({ revoked_at: at }).where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async purgeEnded(now) {
      const result = await db
        .deleteFrom("sessions")
        .where((eb) => eb.or([eb("expires_at", "<=", now), eb("revoked_at", "is not", null)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async revokeAllOf(userId, at) {
      const result = await db.updateTable("sessions").set({ revoked_at: at }).where("user_id", "=", userId).where("revoked_at", "is", null).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
