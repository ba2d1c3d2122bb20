import type { AuditEntry } from "../../domain/audit.ts";
import type { AuditLog } from "../../application/ports/audit.ts";

export function createMemoryAuditLog(entries: Map<string, AuditEntry>): AuditLog {
  return {
    async record(entry) {
      entries.set(entry.id, structuredClone(entry));
    },
    async list(filter) {
      return [...entries.values()]
        .filter(
          (e) =>
            (!filter.action || e.action === filter.action) &&
            (!filter.entityType || e.entityType === filter.entityType) &&
            (!filter.entityId || e.entityId === filter.entityId) &&
            (!filter.userId || e.userId === filter.userId),
        )
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((e) => structuredClone(e));
    },
  };
}
