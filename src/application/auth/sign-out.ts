import type { RequestOrigin } from "../../domain/audit.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";

/**
 * Ends the caller's session on the server, or with `everywhere` every session of the account (the
 * way out for an account without a password, too). Returns the ids of the sessions ended.
 */
export function signOut(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  session: { id: string; userId: string },
  everywhere: boolean,
  origin: RequestOrigin,
): Promise<{ everywhere: boolean }> {
  return deps.uow.transaction(async (tx) => {
    const now = deps.clock.now();
    const ended = everywhere ? await tx.sessions.revokeAllOf(session.userId, now) : Number(await tx.sessions.revoke(session.id, now));
    await recordAudit(tx, deps, {
      userId: session.userId,
      action: "auth.logout",
      entityType: "session",
      entityId: session.id,
      changes: { everywhere, ended },
      origin,
    });
    return { everywhere };
  });
}
