import { unauthenticated } from "../../domain/errors.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, type Permission, type RolePermissions } from "../../domain/permissions.ts";
import { USER_ROLES, type User, type UserRole } from "../../domain/user.ts";
import type { RolePermission } from "../ports/identity.ts";
import type { Deps, Repositories } from "../ports/index.ts";

export interface LoadedRolePermissions {
  permissions: RolePermissions;
  /** True when the table was empty and the built-in defaults apply. */
  fromDefaults: boolean;
}

export const defaultRolePermissions: RolePermissions = new Map(USER_ROLES.map((role) => [role, new Set(DEFAULT_ROLE_PERMISSIONS[role])]));

/** The role-permission table as a map; an empty table means the spec's defaults. */
export async function loadRolePermissions(deps: Pick<Deps, "uow">): Promise<LoadedRolePermissions> {
  return rolePermissionsOf(await deps.uow.read((db) => db.permissions.all()));
}

/** The table's rows as a map; none means the spec's defaults. */
function rolePermissionsOf(rows: readonly RolePermission[]): LoadedRolePermissions {
  if (rows.length === 0) return { permissions: defaultRolePermissions, fromDefaults: true };
  const map = new Map<UserRole, Set<Permission>>(USER_ROLES.map((role) => [role, new Set()]));
  for (const { role, permission } of rows) map.get(role)?.add(permission);
  return { permissions: map, fromDefaults: false };
}

/**
 * Who acts, as the database has it now: `account` is the caller's row, locked by the caller's
 * transaction (null: deleted meanwhile, a caller without a session). A session's role is cached for
 * up to 30 s on each instance (decisions §5), which is fine for what the role lets its holder read
 * or do, but not for giving or taking away roles: an ADMIN demoted on another instance could
 * otherwise make itself ADMIN again, for good. The system actor is itself. The role's permissions
 * are the cached ones while it is the same role (a change of the table itself applies within the 30 s).
 */
export async function actorNow(tx: Pick<Repositories, "permissions">, actor: Actor, account: User | null): Promise<Actor> {
  if (actor.userId === null) return actor;
  if (!account || account.id !== actor.userId) throw unauthenticated();
  if (account.role === actor.role) return actor;
  const { permissions } = rolePermissionsOf(await tx.permissions.all());
  return { userId: account.id, role: account.role, permissions: permissions.get(account.role) ?? new Set() };
}
