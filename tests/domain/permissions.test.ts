import { describe, expect, test } from "bun:test";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, PERMISSIONS, PRESET_RULES, SYSTEM_ACTOR, allows, can, isPermission } from "../../src/domain/permissions.ts";
import { USER_ROLES, type UserRole } from "../../src/domain/user.ts";

const actor = (role: UserRole | "SYSTEM", permissions: readonly string[] = []): Actor => ({
  userId: role === "SYSTEM" ? null : "u1",
  role,
  permissions: new Set(permissions.filter(isPermission)),
});
const withDefaults = (role: UserRole) => actor(role, DEFAULT_ROLE_PERMISSIONS[role]);

describe("can", () => {
  test("is exactly whether the actor holds the permission", () => {
    expect(can(actor("STAFF", ["orders:read"]), "orders:read")).toBe(true);
    expect(can(actor("STAFF", ["orders:read"]), "orders:write")).toBe(false);
    expect(can(actor("ADMIN"), "orders:read")).toBe(false);
  });

  test("the system actor (CLI, bootstrap, background work) holds every permission", () => {
    for (const permission of PERMISSIONS) expect(can(SYSTEM_ACTOR, permission)).toBe(true);
  });
});

describe("allows", () => {
  test("the presets: required lets in every signed-in role, staff three roles, admin one; the system actor is no role", () => {
    const admitted = (rule: keyof typeof PRESET_RULES) => USER_ROLES.filter((role) => allows(PRESET_RULES[rule], actor(role)));
    expect(admitted("required")).toEqual([...USER_ROLES]);
    expect(admitted("staff")).toEqual(["ADMIN", "DEVELOPER", "STAFF"]);
    expect(admitted("admin")).toEqual(["ADMIN"]);
    expect(allows(PRESET_RULES.staff, SYSTEM_ACTOR)).toBe(false);
    expect(allows(PRESET_RULES.required, SYSTEM_ACTOR)).toBe(true);
  });

  test("a permission rule is met by the permission, whatever the role; roles and permission together need both", () => {
    expect(allows({ permission: "products:write" }, actor("CUSTOMER", ["products:write"]))).toBe(true);
    expect(allows({ permission: "products:write" }, actor("ADMIN"))).toBe(false);
    expect(allows({ roles: ["STAFF"], permission: "orders:write" }, actor("STAFF", ["orders:write"]))).toBe(true);
    expect(allows({ roles: ["STAFF"], permission: "orders:write" }, actor("ADMIN", ["orders:write"]))).toBe(false);
  });

  test("with the spec's default permissions, only ADMIN and DEVELOPER may refund, STAFF may write orders and products, customers nothing", () => {
    const holders = (permission: (typeof PERMISSIONS)[number]) => USER_ROLES.filter((role) => allows({ permission }, withDefaults(role)));
    expect(holders("financials:refunds")).toEqual(["ADMIN", "DEVELOPER"]);
    expect(holders("orders:write")).toEqual(["ADMIN", "DEVELOPER", "STAFF"]);
    expect(holders("products:write")).toEqual(["ADMIN", "DEVELOPER", "STAFF"]);
    expect(holders("fundraiser:edit-page")).toEqual(["ADMIN", "DEVELOPER", "FUNDRAISER"]);
    expect(DEFAULT_ROLE_PERMISSIONS.CUSTOMER).toEqual([]);
    expect(DEFAULT_ROLE_PERMISSIONS.WHOLESALE).toEqual([]);
  });
});
