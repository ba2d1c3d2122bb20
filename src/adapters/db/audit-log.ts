import type { AuditAction, AuditEntry } from "../../domain/audit.ts";
import type { AuditLog } from "../../application/ports.ts";
import type { Db } from "./database.ts";

export function createPgAuditLog(db: Db): AuditLog {
  return {
    async record(e) {
      await db
        .insertInto("audit_log")
        .values({
          id: e.id,
          user_id: e.userId,
          action: e.action,
          entity_type: e.entityType,
          entity_id: e.entityId,
          changes: JSON.stringify(e.changes),
          ip_address: e.ipAddress,
          user_agent: e.userAgent,
          created_at: e.createdAt,
        })
        .execute();
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
