import type { AuditAction, AuditEntry } from "../../domain/audit.ts";
import type { AuditLog } from "../../application/ports/audit.ts";
import { compileOnce } from "./compile-once.ts";
import type { Db } from "./database.ts";

// Every audited change writes one of these, so it is compiled once (see compile-once.ts).
const insertEntry = compileOnce(
  (
    db,
    id: string,
    userId: string | null,
    action: string,
    entityType: string,
    entityId: string | null,
    changes: string,
    ipAddress: string | null,
    userAgent: string | null,
    createdAt: Date,
  ) =>
    db.insertInto("audit_log").values({
      id,
      user_id: userId,
      action,
      entity_type: entityType,
      entity_id: entityId,
      changes,
      ip_address: ipAddress,
      user_agent: userAgent,
      created_at: createdAt,
    }),
);

export function createPgAuditLog(db: Db): AuditLog {
  return {
    async record(e) {
      await insertEntry(db, e.id, e.userId, e.action, e.entityType, e.entityId, JSON.stringify(e.changes), e.ipAddress, e.userAgent, e.createdAt);
    },
    async list(filter) {
      let query = db.selectFrom("audit_log").selectAll();
      if (filter.action) query = query.where("action", "=", filter.action);
      if (filter.entityType) query = query.where("entity_type", "=", filter.entityType);
      if (filter.entityId) query = query.where("entity_id", "=", filter.entityId);
      if (filter.userId) query = query.where("user_id", "=", filter.userId);
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").execute();
      return rows.map(
        (r): AuditEntry => ({
          id: r.id,
          userId: r.user_id,
          action: r.action as AuditAction,
          entityType: r.entity_type,
          entityId: r.entity_id,
          changes: r.changes,
          ipAddress: r.ip_address,
          userAgent: r.user_agent,
          createdAt: r.created_at,
        }),
      );
    },
  };
}
