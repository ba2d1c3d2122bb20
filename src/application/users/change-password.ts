import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { passwordProblem } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import { admitPasswordCheck } from "../auth/password-attempts.ts";
import type { Deps } from "../ports/index.ts";

/**
 * Sets a new password and ends every session issued before it. Checks of the current password
 * count against the same limit as sign-ins, so a borrowed session cannot be used to guess it.
 * Session tokens carry whole seconds, so the cut-off is the next whole second: older tokens fall
 * before it; sessions started after the change are stamped no earlier than the cut-off
 * (sessionFor), so they do not.
 */
export async function changePassword(
  deps: Pick<Deps, "uow" | "hasher" | "loginAttempts" | "ids" | "clock">,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  origin: RequestOrigin,
): Promise<{ sessionsValidAfter: Date }> {
  const user = await deps.uow.read((db) => db.users.findById(userId));
  if (!user) throw new DomainError("user.not_found", "User not found");
  const attempt = await admitPasswordCheck(deps, user.email);
  if (!user.passwordHash || !(await deps.hasher.verify(input.currentPassword, user.passwordHash))) {
    throw new DomainError("auth.wrong_password", "Current password is incorrect");
  }
  await attempt.succeeded();
  const problem = passwordProblem(input.newPassword);
  if (problem) throw new DomainError("invalid_input", problem, { issues: [{ path: "newPassword", message: problem }] });

  const passwordHash = await deps.hasher.hash(input.newPassword);
  const now = deps.clock.now();
  const sessionsValidAfter = new Date(Math.ceil(now.getTime() / 1000) * 1000 + (now.getTime() % 1000 === 0 ? 1000 : 0));
  await deps.uow.transaction(async (tx) => {
    await tx.users.update(userId, { passwordHash, sessionsValidAfter, updatedAt: now });
    await recordAudit(tx, deps, { userId, action: "user.password_change", entityType: "user", entityId: userId, origin });
  });
  return { sessionsValidAfter };
}
