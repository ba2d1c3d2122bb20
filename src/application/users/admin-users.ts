import { NO_ORIGIN, type RequestOrigin } from "../../domain/audit.ts";
import { demotesLastAdmin, mayChangeRole } from "../../domain/account.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type User, type UserRole, emailProblem, nameProblem, newUser, normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import { hashPassword, newPasswordIssues } from "../auth/new-password.ts";
import { requirePermission } from "../permissions/require.ts";
import { actorNow } from "../permissions/role-permissions.ts";
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
  // Every field's problem at once, each named, as the HTTP routes answer them.
  const emailIssue = emailProblem(input.email);
  const nameIssue = input.name === undefined ? null : nameProblem(input.name);
  const issues = [
    ...(emailIssue ? [{ path: "email", message: emailIssue }] : []),
    ...newPasswordIssues(deps, input.password, "password"),
    ...(nameIssue ? [{ path: "name", message: nameIssue }] : []),
  ];
  if (issues.length) throw new DomainError("invalid_input", "Invalid request", { issues });
  const user = newUser({
    id: deps.ids.next(),
    email: input.email,
    name: input.name,
    passwordHash: await hashPassword(deps.hasher, input.password),
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

export type UserRef = { id: string } | { email: string };

/**
 * Changes an account's role (PUT /api/admin/users/:id/role, `user:set-role`, BOOTSTRAP_ADMIN_*),
 * by decisions §12's rules: only an ADMIN, a DEVELOPER or the system may give or take away ADMIN
 * or DEVELOPER (mayChangeRole), and the last ADMIN stays one. The caller, the account and, for a
 * change away from ADMIN, every ADMIN are locked in one statement in id order, so changes that cross
 * never deadlock and two admins demoting each other at once are taken one after the other: the
 * second finds itself no ADMIN any more. The caller is judged by its role as locked, not by its
 * session's cached one (actorNow). The same role again changes nothing and records nothing.
 * Callers forget the account in their access cache (use-cases.ts).
 */
export async function setUserRole(deps: AdminDeps, actor: Actor, ref: UserRef, role: UserRole, origin: RequestOrigin = NO_ORIGIN): Promise<User> {
  requirePermission(actor, "users:write");
  return deps.uow.transaction(async (tx) => {
    const seen = "id" in ref ? await tx.users.findById(ref.id) : await tx.users.findByEmail(ref.email);
    if (!seen) throw new DomainError("user.not_found", "id" in ref ? "User not found" : `No user with email ${normalizeEmail(ref.email)}`);
    const leavingAdmin = (from: UserRole) => from === "ADMIN" && role !== "ADMIN";
    // The caller and the account, and every ADMIN when one may go: locked in one id-ordered statement.
    const callerAndTarget = actor.userId === null ? [seen.id] : [actor.userId, seen.id];
    let locked = await tx.users.lockInIdOrder(callerAndTarget, leavingAdmin(seen.role) ? "ADMIN" : undefined);
    const user = locked.find((account) => account.id === seen.id);
    if (!user) throw new DomainError("user.not_found", "User not found");
    // The caller's role now, not its session's (cached): an ADMIN whose ADMIN was taken away is no ADMIN here.
    const by = await actorNow(tx, actor, locked.find((account) => account.id === actor.userId) ?? null);
    requirePermission(by, "users:write");
    if (!mayChangeRole(by, user.role, role)) {
      throw new DomainError("forbidden", "Only an ADMIN or DEVELOPER may give or take away the ADMIN or DEVELOPER role", { from: user.role, to: role });
    }
    if (user.role === role) return user;
    if (leavingAdmin(user.role)) {
      // It became an ADMIN after it was first read: the ADMINs are locked now, after it (a deadlock
      // with another demotion is broken by PostgreSQL, and the transaction run again).
      if (!leavingAdmin(seen.role)) locked = await tx.users.lockInIdOrder([], "ADMIN");
      const admins = locked.filter((account) => account.role === "ADMIN").map((account) => account.id);
      if (demotesLastAdmin(user, role, admins)) {
        throw new DomainError("user.last_admin", "The last ADMIN cannot be demoted; make another account ADMIN first");
      }
    }
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
  await setUserRole(deps, actor, { email: account.email }, "ADMIN");
  return "promoted";
}
