import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError, unauthenticated } from "../../domain/errors.ts";
import { recordAudit } from "../audit.ts";
import { assertNewPassword, hashPassword, passwordMatches } from "../auth/new-password.ts";
import { checkPasswordWithinLimit } from "../auth/password-attempts.ts";
import { type StartedSession, startSession } from "../auth/start-session.ts";
import type { Deps } from "../ports/index.ts";

/**
 * Sets a new password, ends every session of the account and starts a new one for the caller.
 * Checks of the current password count against the same limit as sign-ins, so a borrowed session
 * cannot be used to guess it. `client`: who asks, for the hasher's fair line (decisions §15).
 */
export async function changePassword(
  deps: Pick<Deps, "uow" | "hasher" | "commonPasswords" | "loginAttempts" | "ids" | "clock">,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  origin: RequestOrigin,
  client?: string,
): Promise<StartedSession> {
  // The new password first: one that could never be set is refused without a check of the current
  // one (bcrypt's time, and a try counted against the account's limit).
  assertNewPassword(deps, input.newPassword, "newPassword");
  const user = await deps.uow.read((db) => db.users.findById(userId));
  if (!user) throw unauthenticated();
  const { passwordHash: current } = user;
  const check = async () => current !== null && (await passwordMatches(deps.hasher, input.currentPassword, current, client));
  if (!(await checkPasswordWithinLimit(deps, user.email, check, (right) => right))) {
    throw new DomainError("auth.wrong_password", "Current password is incorrect");
  }

  const passwordHash = await hashPassword(deps.hasher, input.newPassword, client);
  return deps.uow.transaction(async (tx) => {
    // Only over the password that was checked: not one removed meanwhile by a takeover, nor another change.
    if ((await tx.users.lock(userId))?.passwordHash !== user.passwordHash) throw new DomainError("auth.wrong_password", "Current password is incorrect");
    const now = deps.clock.now();
    const updated = (await tx.users.update(userId, { passwordHash, updatedAt: now })) ?? user;
    const sessionsEnded = await tx.sessions.revokeAllOf(userId, now);
    await recordAudit(tx, deps, { userId, action: "user.password_change", entityType: "user", entityId: userId, changes: { sessionsEnded }, origin });
    return startSession(tx, deps, updated);
  });
}
