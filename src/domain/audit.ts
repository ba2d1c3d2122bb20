/** Audit action names (decisions §8). */
export const AUDIT_ACTIONS = [
  "cart.add",
  "cart.update",
  "cart.remove",
  "order.create",
  "order.status_update",
  "order.expire",
  "order.intent_recovered",
  "order.cancel",
  "order.export",
  "payment.succeeded",
  "payment.failed",
  "payment.requires_action",
  "payment.processing",
  "payment.refunded",
  "auth.register",
  "auth.login",
  "auth.login_failed",
  "auth.logout",
  "user.update",
  "user.password_change",
  "user.role_change",
  "user.export",
  "permission.grant",
  "permission.revoke",
  "product.create",
  "product.update",
  "product.delete",
  "product.inventory_adjust",
  "report.export",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number] | `webhook.${string}`;

/** Where a change came from: the HTTP caller's address and agent, or nothing for the CLI. */
export interface RequestOrigin {
  ipAddress: string | null;
  userAgent: string | null;
}

export const NO_ORIGIN: RequestOrigin = { ipAddress: null, userAgent: null };

/**
 * How much of a caller's User-Agent an audit entry keeps: a browser's is some 150 characters. The
 * header may be some 15 KB, which every entry of a flood kept for good (found by an attack).
 */
export const USER_AGENT_KEPT_CHARACTERS = 512;

export interface AuditEntry extends RequestOrigin {
  id: string;
  userId: string | null;
  action: AuditAction;
  entityType: string;
  entityId: string | null;
  changes: Record<string, unknown>;
  createdAt: Date;
}
