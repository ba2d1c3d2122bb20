import type { AuditEntry } from "../../domain/audit.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { AuditLog, AuditQuery } from "../../application/ports/audit.ts";

const newestFirst = (a: AuditEntry, b: AuditEntry) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);

function matches(e: AuditEntry, q: AuditQuery): boolean {
  return (
    (q.userId === undefined || e.userId === q.userId) &&
    (q.action === undefined || e.action === q.action) &&
    (q.actionPrefix === undefined || e.action.startsWith(q.actionPrefix)) &&
    (q.entityType === undefined || e.entityType === q.entityType) &&
    (q.entityId === undefined || e.entityId === q.entityId) &&
    (q.from === undefined || e.createdAt >= q.from) &&
    (q.to === undefined || e.createdAt < q.to)
  );
}

export function createMemoryAuditLog(entries: Map<string, AuditEntry>): AuditLog {
  return {
    async record(entry) {
      entries.set(entry.id, structuredClone(entry));
    },
    async listPage(query, page) {
      const found = [...entries.values()].filter((e) => matches(e, query)).sort(newestFirst);
      const start = offsetOf(page);
      return { items: found.slice(start, start + page.limit).map((e) => structuredClone(e)), total: found.length };
    },
  };
}
