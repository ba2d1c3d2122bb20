import { describe, expect, test } from "bun:test";
import { register } from "../../src/application/auth/register.ts";
import { createUser, ensureAdmin, setUserRole } from "../../src/application/users/admin-users.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS, type Permission, SYSTEM_ACTOR } from "../../src/domain/permissions.ts";
import type { User, UserRole } from "../../src/domain/user.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { auditEntries } from "../support/audit.ts";

const customer = { userId: "u1", role: "CUSTOMER" as const, permissions: new Set<never>() };

describe("admin account management", () => {
  test("BOOTSTRAP_ADMIN creates the admin once, then leaves it alone", async () => {
    const deps = createMemoryDeps();
    expect(await ensureAdmin(deps, SYSTEM_ACTOR, { email: "Boss@Example.com", password: "very secret" })).toBe("created");
    expect(await ensureAdmin(deps, SYSTEM_ACTOR, { email: "boss@example.com", password: "other secret" })).toBe("unchanged");
    const boss = await deps.repos.users.findByEmail("boss@example.com");
    expect(boss).toMatchObject({ role: "ADMIN", isEmailVerified: true });
    expect(await deps.hasher.verify(["very secret"], boss?.passwordHash ?? "")).toBe(true);
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
    const [change] = await auditEntries(deps.repos.audit, { action: "user.role_change" });
    expect(change?.changes).toEqual({ from: "CUSTOMER", to: "ADMIN" });
  });

  test("creating users and changing roles needs users:write", async () => {
    const deps = createMemoryDeps();
    await expect(createUser(deps, customer, { email: "x@example.com", password: "long enough", role: "ADMIN" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(setUserRole(deps, customer, { email: "x@example.com" }, "ADMIN")).rejects.toMatchObject({ code: "forbidden" });
    expect(deps.state.users.size).toBe(0);
  });
});

describe("role changes (decisions §12): who may give or take away ADMIN and DEVELOPER, and the last ADMIN", () => {
  /** An actor of the role with its default permissions, plus any granted. */
  const actorOf = (user: User, granted: Permission[] = []): Actor => ({
    userId: user.id,
    role: user.role,
    permissions: new Set([...DEFAULT_ROLE_PERMISSIONS[user.role], ...granted]),
  });

  async function shop(...roles: UserRole[]) {
    const deps = createMemoryDeps();
    const users: User[] = [];
    for (const role of roles) {
      const user = aUser({ role });
      await deps.repos.users.create(user);
      users.push(user);
    }
    const roleOf = async (user: User) => (await deps.repos.users.findById(user.id))?.role;
    const changes = () => auditEntries(deps.repos.audit, { action: "user.role_change" });
    return { deps, users, roleOf, changes };
  }

  test("STAFF granted users:write cannot make anyone ADMIN or DEVELOPER, nor demote one, itself included; nothing changes, nothing is recorded", async () => {
    const { deps, users, roleOf, changes } = await shop("STAFF", "CUSTOMER", "ADMIN", "DEVELOPER", "ADMIN");
    const [staff, customer, admin, developer] = users as [User, User, User, User];
    const actor = actorOf(staff, ["users:write"]);
    for (const [target, to] of [
      [customer, "ADMIN"],
      [customer, "DEVELOPER"],
      [staff, "ADMIN"],
      [admin, "CUSTOMER"],
      [admin, "DEVELOPER"],
      [developer, "STAFF"],
    ] as const) {
      const error = await domainErrorOf(setUserRole(deps, actor, { id: target.id }, to));
      expect({ target: target.role, to, code: error.code }).toEqual({ target: target.role, to, code: "forbidden" });
      expect(await roleOf(target)).toBe(target.role);
    }
    expect(await changes()).toEqual([]);
  });

  test("STAFF granted users:write moves accounts between the other roles", async () => {
    const { deps, users, roleOf } = await shop("STAFF", "CUSTOMER");
    const [staff, customer] = users as [User, User];
    await setUserRole(deps, actorOf(staff, ["users:write"]), { id: customer.id }, "WHOLESALE");
    expect(await roleOf(customer)).toBe("WHOLESALE");
  });

  test("STAFF without users:write (the default) may not change roles at all", async () => {
    const { deps, users } = await shop("STAFF", "CUSTOMER");
    const [staff, customer] = users as [User, User];
    expect((await domainErrorOf(setUserRole(deps, actorOf(staff), { id: customer.id }, "WHOLESALE"))).code).toBe("forbidden");
  });

  test("an ADMIN gives and takes away ADMIN and DEVELOPER, each change recorded with who, before and after", async () => {
    const { deps, users, roleOf, changes } = await shop("ADMIN", "CUSTOMER", "DEVELOPER");
    const [admin, customer, developer] = users as [User, User, User];
    const origin = { ipAddress: "203.0.113.9", userAgent: "tests" };
    for (const [target, to] of [
      [customer, "ADMIN"],
      [developer, "STAFF"],
      [customer, "DEVELOPER"],
    ] as const) {
      await setUserRole(deps, actorOf(admin), { id: target.id }, to, origin);
      deps.clock.advance(1_000);
    }
    expect([await roleOf(customer), await roleOf(developer)]).toEqual(["DEVELOPER", "STAFF"]);
    expect((await changes()).map((c) => [c.userId, c.entityId, c.changes, c.ipAddress]).reverse()).toEqual([
      [admin.id, customer.id, { from: "CUSTOMER", to: "ADMIN" }, "203.0.113.9"],
      [admin.id, developer.id, { from: "DEVELOPER", to: "STAFF" }, "203.0.113.9"],
      [admin.id, customer.id, { from: "ADMIN", to: "DEVELOPER" }, "203.0.113.9"],
    ]);
  });

  test("a DEVELOPER may too", async () => {
    const { deps, users, roleOf } = await shop("DEVELOPER", "STAFF", "ADMIN", "ADMIN");
    const [developer, staff, admin] = users as [User, User, User];
    await setUserRole(deps, actorOf(developer), { id: staff.id }, "ADMIN");
    await setUserRole(deps, actorOf(developer), { id: admin.id }, "CUSTOMER");
    expect([await roleOf(staff), await roleOf(admin)]).toEqual(["ADMIN", "CUSTOMER"]);
  });

  test("the last ADMIN cannot be demoted, by another role, by itself or by the system (409); a DEVELOPER is no ADMIN", async () => {
    const { deps, users, roleOf, changes } = await shop("ADMIN", "DEVELOPER");
    const [admin, developer] = users as [User, User];
    for (const actor of [actorOf(developer), actorOf(admin), SYSTEM_ACTOR]) {
      for (const to of ["DEVELOPER", "CUSTOMER"] as const) {
        const error = await domainErrorOf(setUserRole(deps, actor, { id: admin.id }, to));
        expect([error.code, error.message]).toEqual(["user.last_admin", "The last ADMIN cannot be demoted; make another account ADMIN first"]);
      }
    }
    expect(await roleOf(admin)).toBe("ADMIN");
    expect(await changes()).toEqual([]);
  });

  test("with a second ADMIN, one may go; then the other is the last", async () => {
    const { deps, users, roleOf } = await shop("ADMIN", "ADMIN");
    const [first, second] = users as [User, User];
    await setUserRole(deps, actorOf(first), { id: second.id }, "STAFF");
    expect(await roleOf(second)).toBe("STAFF");
    expect((await domainErrorOf(setUserRole(deps, actorOf(first), { id: first.id }, "STAFF"))).code).toBe("user.last_admin");
  });

  test("the caller is judged by its role now, not its session's: an ADMIN demoted meanwhile gives no role, itself included; a deleted caller has no session", async () => {
    const { deps, users, roleOf, changes } = await shop("ADMIN", "ADMIN", "CUSTOMER");
    const [first, second, customer] = users as [User, User, User];
    const asItWas = actorOf(second);
    await setUserRole(deps, actorOf(first), { id: second.id }, "CUSTOMER");
    for (const [target, to] of [
      [second, "ADMIN"],
      [customer, "ADMIN"],
      [customer, "WHOLESALE"],
      [first, "CUSTOMER"],
    ] as const) {
      expect((await domainErrorOf(setUserRole(deps, asItWas, { id: target.id }, to))).code).toBe("forbidden");
    }
    expect([await roleOf(first), await roleOf(second), await roleOf(customer)]).toEqual(["ADMIN", "CUSTOMER", "CUSTOMER"]);
    expect(await changes()).toHaveLength(1);

    deps.state.users.delete(first.id);
    expect((await domainErrorOf(setUserRole(deps, actorOf(first), { id: customer.id }, "STAFF"))).code).toBe("auth.unauthenticated");
  });

  test("the same role again changes nothing and records nothing; an unknown account is user.not_found", async () => {
    const { deps, users, changes } = await shop("ADMIN", "CUSTOMER");
    const [admin, customer] = users as [User, User];
    const unchanged = await setUserRole(deps, actorOf(admin), { id: customer.id }, "CUSTOMER");
    expect(unchanged).toEqual(customer);
    expect(await setUserRole(deps, actorOf(admin), { id: admin.id }, "ADMIN")).toEqual(admin);
    expect(await changes()).toEqual([]);
    expect((await domainErrorOf(setUserRole(deps, actorOf(admin), { id: "z12345678901234567890123" }, "STAFF"))).code).toBe("user.not_found");
  });
});
