import { DomainError } from "../../domain/errors.ts";
import { type Actor, type Permission, can } from "../../domain/permissions.ts";

export function requirePermission(actor: Actor, permission: Permission): void {
  if (!can(actor, permission)) {
    throw new DomainError("forbidden", "Insufficient permissions", { required: permission });
  }
}
