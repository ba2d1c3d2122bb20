import { NO_ORIGIN, type RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type User, type UserRole, emailProblem, newUser, normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import { assertNewPassword } from "../auth/new-password.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

type AdminDeps = Pick<Deps, "uow" | "hasher" | "commonPasswords" | "ids" | "clock">;

export interface NewAccount {
  email: string;
  password: string;
  name?: string;
  role: UserRole;
}

/** An account made by staff or the CLI: any role, e-mail taken as verified, no welcome mail. */
export async function createUser(deps: AdminDeps, actor: Actor, input: NewAccount, origin: RequestOrigin = NO_ORIGIN): Promise<User> {
  requirePermission(actor, "users:write");
  const problem = emailProblem(input.email);
  if (problem) throw new DomainError("invalid_input", problem);
  assertNewPassword(deps, input.password, "password");
  const user = newUser({
    id: deps.ids.next(),
    email: input.email,
    name: input.name,
    passwordHash: await deps.hasher.hash(input.password),
    role: input.role,
    isEmailVerified: true,
    at: deps.clock.now(),
  });
  await deps.uow.transaction(async (tx) => {
    await tx.users.create(user);
    await recordAudit(tx, deps, {
      userId: actor.userId,
      action: "auth.register",
      entityType: "user",
      entityId: user.id,
      changes: { email: user.email, role: user.role, by: actor.role },
      origin,
    });
  });
  return user;
}

export async function setUserRole(deps: AdminDeps, actor: Actor, email: string, role: UserRole, origin: RequestOrigin = NO_ORIGIN): Promise<User> {
  requirePermission(actor, "users:write");
  return deps.uow.transaction(async (tx) => {
    const user = await tx.users.findByEmail(email);
    if (!user) throw new DomainError("user.not_found", `No user with email ${normalizeEmail(email)}`);
    const updated = await tx.users.update(user.id, { role, updatedAt: deps.clock.now() });
    await recordAudit(tx, deps, {
      userId: actor.userId,
      action: "user.role_change",
      entityType: "user",
      entityId: user.id,
      changes: { from: user.role, to: role },
      origin,
    });
    return updated ?? user;
  });
}

/**
 * BOOTSTRAP_ADMIN_*: makes sure that account exists and is an ADMIN; its password is left alone if it
 * exists. Instances started together each try: the one whose account is made first wins, and the
 * others find it there.
 */
export async function ensureAdmin(deps: AdminDeps, actor: Actor, account: { email: string; password: string }): Promise<"created" | "promoted" | "unchanged"> {
  const existing = await deps.uow.read((db) => db.users.findByEmail(account.email));
  if (!existing) {
    const made = await createUser(deps, actor, { ...account, role: "ADMIN" }).then(
      () => true,
      (error: unknown) => {
        if (error instanceof DomainError && error.code === "auth.email_taken") return false;
        throw error;
      },
    );
    if (made) return "created";
    return ensureAdmin(deps, actor, account);
  }
  if (existing.role === "ADMIN") return "unchanged";
  await setUserRole(deps, actor, account.email, "ADMIN");
  return "promoted";
}
