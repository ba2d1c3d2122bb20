import type { Permission } from "../../domain/permissions.ts";
import type { UserRole } from "../../domain/user.ts";
import type { PermissionRepository, RolePermission } from "../../application/ports/identity.ts";

/** Keys are `${role} ${permission}`. */
export function createMemoryPermissionRepository(grants: Map<string, RolePermission>): PermissionRepository {
  const key = (role: UserRole, permission: Permission) => `${role} ${permission}`;
  return {
    async all() {
      return [...grants.values()].sort((a, b) => (a.role + a.permission < b.role + b.permission ? -1 : 1)).map((g) => ({ ...g }));
    },
    async grant(role, permission) {
      if (grants.has(key(role, permission))) return false;
      grants.set(key(role, permission), { role, permission });
      return true;
    },
    async revoke(role, permission) {
      return grants.delete(key(role, permission));
    },
  };
}
