import type { AuditEntry } from "../../domain/audit.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";

/** The back office's search of the log (decisions §12). */
export interface AuditQuery {
  userId?: string;
  /** Exactly this action. */
  action?: string;
  /** Actions beginning with this text (`order.` finds every order action). */
  actionPrefix?: string;
  entityType?: string;
  entityId?: string;
  /** Entries at or after. */
  from?: Date;
  /** Entries before. */
  to?: Date;
}

export interface AuditReader {
  /** Matching entries newest first (then by id), one page of them, and how many match in all. */
  listPage(query: AuditQuery, page: PageRequest): Promise<Paged<AuditEntry>>;
}

export interface AuditLog extends AuditReader {
  record(entry: AuditEntry): Promise<void>;
}
