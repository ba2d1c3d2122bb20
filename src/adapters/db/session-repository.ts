import { type SelectQueryBuilder, type Selectable, sql } from "kysely";
import type { Session } from "../../domain/session.ts";
import type { SessionRepository } from "../../application/ports/identity.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";
import type { Database, SessionsTable } from "./tables.ts";

const toSession = (row: Selectable<SessionsTable>): Session => ({
  id: row.id,
  userId: row.user_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

// Read whenever an instance meets a session it has not cached yet, so compiled once (see compile-once.ts).
const byId = compileOnce((db, id: string) => db.selectFrom("sessions").selectAll().where("id", "=", id));

/**
 * Deletes the first `limit` sessions of `which`, found in the order of its index and deleted by their
 * rows' addresses: a batch never reads the live sessions, however many, nor joins the whole table.
 */
async function deleteFirst(db: Db, which: SelectQueryBuilder<Database, "sessions", object>, limit: number): Promise<number> {
  const rows = which.select(sql`ctid`.as("row")).limit(limit);
  const result = await db.deleteFrom("sessions").where(sql<boolean>`ctid = any(array(${rows}))`).executeTakeFirst();
  return Number(result.numDeletedRows);
}

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
    async purgeEnded(now, limit) {
      const expired = await deleteFirst(db, db.selectFrom("sessions").where("expires_at", "<=", now).orderBy("expires_at"), limit);
      if (expired >= limit) return expired;
      return expired + (await deleteFirst(db, db.selectFrom("sessions").where("revoked_at", "is not", null).orderBy("revoked_at"), limit - expired));
    },
    async revokeAllOf(userId, at) {
      const result = await db.updateTable("sessions").set({ revoked_at: at }).where("user_id", "=", userId).where("revoked_at", "is", null).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
