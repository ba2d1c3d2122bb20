import { DEFAULT_ROLE_PERMISSIONS, type Permission, type RolePermissions } from "../../domain/permissions.ts";
import { USER_ROLES, type UserRole } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";

export interface LoadedRolePermissions {
  permissions: RolePermissions;
  /** True when the table was empty and the built-in defaults apply. */
  fromDefaults: boolean;
}

export const defaultRolePermissions: RolePermissions = new Map(USER_ROLES.map((role) => [role, new Set(DEFAULT_ROLE_PERMISSIONS[role])]));

/** The role-permission table as a map; an empty table means the spec's defaults. */
export async function loadRolePermissions(deps: Pick<Deps, "uow">): Promise<LoadedRolePermissions> {
  const rows = await deps.uow.read((db) => db.permissions.all());
  if (rows.length === 0) return { permissions: defaultRolePermissions, fromDefaults: true };
  const map = new Map<UserRole, Set<Permission>>(USER_ROLES.map((role) => [role, new Set()]));
  for (const { role, permission } of rows) map.get(role)?.add(permission);
  return { permissions: map, fromDefaults: false };
}
