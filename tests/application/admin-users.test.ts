import { describe, expect, test } from "bun:test";
import { register } from "../../src/application/auth/register.ts";
import { createUser, ensureAdmin, setUserRole } from "../../src/application/users/admin-users.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";

const customer = { userId: "u1", role: "CUSTOMER" as const, permissions: new Set<never>() };

describe("admin account management", () => {
  test("BOOTSTRAP_ADMIN creates the admin once, then leaves it alone", async () => {
    const deps = createMemoryDeps();
    expect(await ensureAdmin(deps, SYSTEM_ACTOR, { email: "Boss@Example.com", password: "very secret" })).toBe("created");
    expect(await ensureAdmin(deps, SYSTEM_ACTOR, { email: "boss@example.com", password: "other secret" })).toBe("unchanged");
    const boss = await deps.repos.users.findByEmail("boss@example.com");
    expect(boss).toMatchObject({ role: "ADMIN", isEmailVerified: true });
    expect(await deps.hasher.verify("very secret", boss?.passwordHash ?? "")).toBe(true);
  });

  test("BOOTSTRAP_ADMIN on instances started together: one makes the account, the others find it, none fails", async () => {
    const deps = createMemoryDeps();
    const results = await Promise.all([1, 2, 3].map(() => ensureAdmin(deps, SYSTEM_ACTOR, { email: "boss@example.com", password: "very secret" })));
    expect(results.sort()).toEqual(["created", "unchanged", "unchanged"]);
    expect(deps.state.users.size).toBe(1);
  });

  test("BOOTSTRAP_ADMIN promotes an existing account, recording the role change", async () => {
    const deps = createMemoryDeps();
    await register(deps, { email: "boss@example.com", password: "very secret" }, NO_ORIGIN, "http://x");
    expect(await ensureAdmin(deps, SYSTEM_ACTOR, { email: "boss@example.com", password: "ignored!" })).toBe("promoted");
    expect((await deps.repos.users.findByEmail("boss@example.com"))?.role).toBe("ADMIN");
    const [change] = await deps.repos.audit.list({ action: "user.role_change" });
    expect(change?.changes).toEqual({ from: "CUSTOMER", to: "ADMIN" });
  });

  test("creating users and changing roles needs users:write", async () => {
    const deps = createMemoryDeps();
    await expect(createUser(deps, customer, { email: "x@example.com", password: "long enough", role: "ADMIN" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(setUserRole(deps, customer, "x@example.com", "ADMIN")).rejects.toMatchObject({ code: "forbidden" });
    expect(deps.state.users.size).toBe(0);
  });
});
