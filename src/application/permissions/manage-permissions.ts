import { NO_ORIGIN } from "../../domain/audit.ts";
import type { Actor, Permission } from "../../domain/permissions.ts";
import { USER_ROLES, type UserRole } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";
import { requirePermission } from "./require.ts";
import { loadRolePermissions } from "./role-permissions.ts";

type PermissionDeps = Pick<Deps, "uow" | "ids" | "clock">;

export async function listPermissions(deps: PermissionDeps, actor: Actor, role?: UserRole) {
  requirePermission(actor, "settings:read");
  const { permissions, fromDefaults } = await loadRolePermissions(deps);
  const roles = role ? [role] : USER_ROLES;
  return { fromDefaults, roles: roles.map((r) => ({ role: r, permissions: [...(permissions.get(r) ?? [])].sort() })) };
}

async function change(deps: PermissionDeps, actor: Actor, role: UserRole, permission: Permission, grant: boolean): Promise<boolean> {
  requirePermission(actor, "settings:write");
  return deps.uow.transaction(async (tx) => {
    const changed = grant ? await tx.permissions.grant(role, permission) : await tx.permissions.revoke(role, permission);
    if (changed) {
      await recordAudit(tx, deps, {
        userId: actor.userId,
        action: grant ? "permission.grant" : "permission.revoke",
        entityType: "role",
        entityId: role,
        changes: { permission },
        origin: NO_ORIGIN,
      });
    }
    return changed;
  });
}

export const grantPermission = (deps: PermissionDeps, actor: Actor, role: UserRole, permission: Permission) => change(deps, actor, role, permission, true);

export const revokePermission = (deps: PermissionDeps, actor: Actor, role: UserRole, permission: Permission) => change(deps, actor, role, permission, false);
