import { describe, expect, test } from "bun:test";
import type { ContractTarget } from "./targets.ts";

// Every adapter starts each test from an empty table: the contract reset also empties the
// role_permissions rows that the PostgreSQL migration fills with the default grants.
export function permissionRepositoryContract(target: () => ContractTarget) {
  describe("PermissionRepository", () => {
    const repo = () => target().repos.permissions;

    test("grant is true the first time and false for a repeat", async () => {
      expect(await repo().all()).toEqual([]);
      expect(await repo().grant("STAFF", "orders:read")).toBe(true);
      expect(await repo().grant("STAFF", "orders:read")).toBe(false);
      expect(await repo().all()).toEqual([{ role: "STAFF", permission: "orders:read" }]);
    });

    test("the same permission may be granted to several roles", async () => {
      expect(await repo().grant("STAFF", "orders:read")).toBe(true);
      expect(await repo().grant("ADMIN", "orders:read")).toBe(true);
      expect(await repo().all()).toEqual([
        { role: "ADMIN", permission: "orders:read" },
        { role: "STAFF", permission: "orders:read" },
      ]);
    });

    test("all lists every grant, sorted by role then permission", async () => {
      await repo().grant("STAFF", "orders:read");
      await repo().grant("ADMIN", "users:write");
      await repo().grant("FUNDRAISER", "fundraiser:edit-page");
      await repo().grant("ADMIN", "analytics:read");
      await repo().grant("STAFF", "ai-analytics:view");
      await repo().grant("ADMIN", "gift-certificates:read");
      await repo().grant("DEVELOPER", "settings:write");
      expect(await repo().all()).toEqual([
        { role: "ADMIN", permission: "analytics:read" },
        { role: "ADMIN", permission: "gift-certificates:read" },
        { role: "ADMIN", permission: "users:write" },
        { role: "DEVELOPER", permission: "settings:write" },
        { role: "FUNDRAISER", permission: "fundraiser:edit-page" },
        { role: "STAFF", permission: "ai-analytics:view" },
        { role: "STAFF", permission: "orders:read" },
      ]);
    });

    test("revoke is true when the role had the permission and false after", async () => {
      await repo().grant("STAFF", "orders:read");
      expect(await repo().revoke("STAFF", "orders:read")).toBe(true);
      expect(await repo().revoke("STAFF", "orders:read")).toBe(false);
      expect(await repo().all()).toEqual([]);
    });

    test("revoke leaves the other grants, including the same permission on other roles", async () => {
      await repo().grant("STAFF", "orders:read");
      await repo().grant("STAFF", "orders:write");
      await repo().grant("ADMIN", "orders:read");
      expect(await repo().revoke("STAFF", "orders:read")).toBe(true);
      expect(await repo().revoke("CUSTOMER", "orders:write")).toBe(false);
      expect(await repo().all()).toEqual([
        { role: "ADMIN", permission: "orders:read" },
        { role: "STAFF", permission: "orders:write" },
      ]);
    });

    test("a revoked permission can be granted again", async () => {
      await repo().grant("WHOLESALE", "products:read");
      await repo().revoke("WHOLESALE", "products:read");
      expect(await repo().grant("WHOLESALE", "products:read")).toBe(true);
      expect(await repo().all()).toEqual([{ role: "WHOLESALE", permission: "products:read" }]);
    });
  });
}
