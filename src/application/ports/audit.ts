import type { AuditAction, AuditEntry } from "../../domain/audit.ts";

export interface AuditFilter {
  action?: AuditAction;
  entityType?: string;
  entityId?: string;
  userId?: string;
}

export interface AuditReader {
  /** Newest first. */
  list(filter: AuditFilter): Promise<AuditEntry[]>;
}

export interface AuditLog extends AuditReader {
  record(entry: AuditEntry): Promise<void>;
}
