import type { AuditQuery, AuditReader } from "../../src/application/ports/audit.ts";
import type { AuditEntry } from "../../src/domain/audit.ts";
import { MAX_PAGE_SIZE } from "../../src/domain/paging.ts";

/** Every entry of the log that matches, newest first: read a page at a time, as the back office reads it (listPage). */
export async function auditEntries(audit: AuditReader, query: AuditQuery = {}): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await audit.listPage(query, { page, limit: MAX_PAGE_SIZE });
    entries.push(...items);
    if (items.length < MAX_PAGE_SIZE || entries.length >= total) return entries;
  }
}
