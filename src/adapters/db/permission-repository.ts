import type { Permission } from "../../domain/permissions.ts";
import type { UserRole } from "../../domain/user.ts";
import type { PermissionRepository } from "../../application/ports/identity.ts";
import type { Db } from "./database.ts";

export function createPgPermissionRepository(db: Db): PermissionRepository {
  return {
    async all() {
      try {
        const rows = await db.selectFrom("role_permissions").selectAll().orderBy("role").orderBy("permission").execute();
        return rows.map((r) => ({ role: r.role as UserRole, permission: r.permission as Permission }));
      } catch (error) {
        // The spec: an empty *or missing* table means the built-in defaults (SQLSTATE 42P01: undefined_table).
        if ((error as { code?: unknown }).code === "42P01") return [];
        throw error;
      }
    },
    async grant(role, permission) {
      const result = await db
        .insertInto("role_permissions")
        .values({ role, permission })
        .onConflict((oc) => oc.columns(["role", "permission"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async revoke(role, permission) {
      const result = await db.deleteFrom("role_permissions").where("role", "=", role).where("permission", "=", permission).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
