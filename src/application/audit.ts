import type { AuditAction, AuditEntry, RequestOrigin } from "../domain/audit.ts";
import type { Deps, Repositories } from "./ports/index.ts";

export interface AuditFields {
  userId: string | null;
  action: AuditAction;
  entityType: string;
  entityId: string | null;
  changes?: Record<string, unknown>;
  origin: RequestOrigin;
}

/** Records one audit entry through the given repositories: pass the transaction's, so it lands with the change. */
export function recordAudit(tx: Pick<Repositories, "audit">, deps: Pick<Deps, "ids" | "clock">, f: AuditFields): Promise<void> {
  return tx.audit.record(auditEntry(deps, f));
}

/** The entry recordAudit writes, for a repository that writes it in the statement of its change. */
export function auditEntry(deps: Pick<Deps, "ids" | "clock">, f: AuditFields): AuditEntry {
  return {
    id: deps.ids.next(),
    userId: f.userId,
    action: f.action,
    entityType: f.entityType,
    entityId: f.entityId,
    changes: f.changes ?? {},
    ipAddress: f.origin.ipAddress,
    userAgent: f.origin.userAgent,
    createdAt: deps.clock.now(),
  };
}
