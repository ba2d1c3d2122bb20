import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";
import { passwordMatches } from "./new-password.ts";
import { checkPasswordWithinLimit } from "./password-attempts.ts";
import { type StartedSession, startSession } from "./start-session.ts";

const invalid = () => new DomainError("auth.invalid_credentials", "Invalid email or password");

/**
 * Password sign-in, ending in a new session. Unknown e-mail, wrong password and password-less
 * accounts all fail alike; five failures for one e-mail within 15 minutes lock that e-mail out
 * until the window ends. `client`: who asks, for the hasher's fair line (decisions §15).
 */
export async function signInWithPassword(
  deps: Pick<Deps, "uow" | "hasher" | "loginAttempts" | "ids" | "clock">,
  input: { email: string; password: string },
  origin: RequestOrigin,
  client?: string,
): Promise<StartedSession> {
  const email = normalizeEmail(input.email);
  const { user, matches } = await checkPasswordWithinLimit(
    deps,
    email,
    async () => {
      const found = await deps.uow.read((db) => db.users.findByEmail(email));
      // No hash (no account, or no password): the hasher takes as long as a check without making one.
      return { user: found, matches: await passwordMatches(deps.hasher, input.password, found?.passwordHash ?? null, client) };
    },
    ({ user, matches }) => matches && !!user?.passwordHash,
  );
  if (!user?.passwordHash || !matches) {
    await deps.uow.transaction((tx) =>
      recordAudit(tx, deps, {
        userId: user?.id ?? null,
        action: "auth.login_failed",
        entityType: "user",
        entityId: user?.id ?? null,
        changes: { email },
        origin,
      }),
    );
    throw invalid();
  }

  return deps.uow.transaction(async (tx) => {
    // The password may have gone while it was checked (a verified identity took the account over,
    // or it was changed): the session is started only if it is still the one that matched.
    if ((await tx.users.lock(user.id))?.passwordHash !== user.passwordHash) throw invalid();
    await recordAudit(tx, deps, { userId: user.id, action: "auth.login", entityType: "user", entityId: user.id, changes: { method: "credentials" }, origin });
    return startSession(tx, deps, user);
  });
}
