import type { AccountFilter, AccountSummary } from "../../domain/account.ts";
import type { RequestOrigin } from "../../domain/audit.ts";
import type { Actor } from "../../domain/permissions.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

export interface AccountExport {
  /** When it began: the audit entry's time, and the date in the file's name. */
  startedAt: Date;
  /** The accounts in keyset batches, read as they are taken. */
  batches: AsyncGenerator<AccountSummary[]>;
}

/**
 * GET /api/admin/users/export: who exported the accounts, and with which filters, is recorded once,
 * before the first row is read (decisions §12); the rows then come batch by batch, nothing held
 * between batches, so an export of any size neither fills memory nor blocks other requests.
 */
export async function exportUsers(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  actor: Actor,
  filter: AccountFilter,
  origin: RequestOrigin,
): Promise<AccountExport> {
  requirePermission(actor, "users:export");
  const startedAt = deps.clock.now();
  const filters = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
  await deps.uow.transaction((tx) =>
    recordAudit(tx, deps, { userId: actor.userId, action: "user.export", entityType: "user", entityId: null, changes: { filters }, origin }),
  );
  return { startedAt, batches: await deps.uow.read(async (db) => db.users.everyAccount(filter)) };
}
