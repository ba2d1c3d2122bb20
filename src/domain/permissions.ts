import type { UserRole } from "./user.ts";

export const PERMISSIONS = [
  "orders:read",
  "orders:write",
  "orders:export",
  "orders:import",
  "orders:modify",
  "orders:print-labels",
  "products:read",
  "products:write",
  "products:bulk",
  "products:export",
  "products:import",
  "users:read",
  "users:write",
  "users:impersonate",
  "users:export",
  "content:read",
  "content:write",
  "content:publish",
  "analytics:read",
  "analytics:export",
  "settings:read",
  "settings:write",
  "financials:read",
  "financials:refunds",
  "financials:export",
  "messaging:read",
  "messaging:reply",
  "messaging:assign",
  "gift-certificates:read",
  "gift-certificates:write",
  "gift-certificates:import",
  "gift-certificates:export",
  "fundraiser:view-dashboard",
  "fundraiser:edit-page",
  "fundraiser:upload-assets",
  "fundraiser:view-analytics",
  "locations:read",
  "events:read",
  "seo:read",
  "ai-analytics:view",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** The spec's defaults by role, used to fill the role-permission table and when it is empty. */
export const DEFAULT_ROLE_PERMISSIONS: Record<UserRole, readonly Permission[]> = {
  ADMIN: PERMISSIONS,
  DEVELOPER: PERMISSIONS,
  STAFF: [
    "orders:read",
    "orders:write",
    "orders:export",
    "orders:import",
    "orders:modify",
    "orders:print-labels",
    "products:read",
    "products:write",
    "products:bulk",
    "products:import",
    "users:read",
    "content:read",
    "content:write",
    "analytics:read",
    "messaging:read",
    "messaging:reply",
    "messaging:assign",
    "gift-certificates:read",
    "gift-certificates:write",
    "locations:read",
    "events:read",
    "seo:read",
    "ai-analytics:view",
  ],
  CUSTOMER: [],
  WHOLESALE: [],
  FUNDRAISER: ["fundraiser:view-dashboard", "fundraiser:edit-page", "fundraiser:upload-assets", "fundraiser:view-analytics"],
};

export type RolePermissions = ReadonlyMap<UserRole, ReadonlySet<Permission>>;

/** Who is acting: a signed-in user, or the system itself (CLI, bootstrap, background work). */
export interface Actor {
  userId: string | null;
  role: UserRole | "SYSTEM";
  permissions: ReadonlySet<Permission>;
}

export const SYSTEM_ACTOR: Actor = { userId: null, role: "SYSTEM", permissions: new Set(PERMISSIONS) };

export function can(actor: Actor, permission: Permission): boolean {
  return actor.permissions.has(permission);
}

/** What an endpoint asks of its caller (the spec's presets are built from these). */
export interface AccessRule {
  roles?: readonly UserRole[];
  permission?: Permission;
}

export const PRESET_RULES = {
  required: {},
  admin: { roles: ["ADMIN"] },
  staff: { roles: ["ADMIN", "DEVELOPER", "STAFF"] },
} as const satisfies Record<string, AccessRule>;

export function allows(rule: AccessRule, actor: Actor): boolean {
  if (rule.roles && (actor.role === "SYSTEM" || !rule.roles.includes(actor.role))) return false;
  return rule.permission === undefined || can(actor, rule.permission);
}
