import type { AuditEntry } from "../../domain/audit.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";
import type { Actor } from "../../domain/permissions.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";
import type { AuditQuery } from "../ports/audit.ts";

/** The audit log's filters as staff give them: `action` is one action, or, ending in `.`, every action it begins (`order.`). */
export type AuditSearch = Omit<AuditQuery, "actionPrefix">;

/** GET /api/admin/audit: the log, newest first (decisions §12). */
export async function readAuditLog(deps: Pick<Deps, "uow">, actor: Actor, search: AuditSearch, page: PageRequest): Promise<Paged<AuditEntry>> {
  requirePermission(actor, "settings:read");
  const { action, ...rest } = search;
  const query: AuditQuery = action?.endsWith(".") ? { ...rest, actionPrefix: action } : { ...rest, action };
  return deps.uow.read((db) => db.audit.listPage(query, page));
}
