import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { setUserRole } from "../../src/application/users/admin-users.ts";
import { createPgUserRepository } from "../../src/adapters/db/user-repository.ts";
import type { AccountSummary } from "../../src/domain/account.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import type { User, UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aUser } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { auditEntries } from "../support/audit.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const adminActor = (user: User): Actor => ({ userId: user.id, role: "ADMIN", permissions: new Set(DEFAULT_ROLE_PERMISSIONS.ADMIN) });

test("two admins demoting each other at once leave one ADMIN: one change lands, the other is refused, its caller no ADMIN any more (PostgreSQL)", async () => {
  const deps = createPgDeps(database.db);
  for (let round = 0; round < 10; round++) {
    await sql`update users set role = 'CUSTOMER' where role = 'ADMIN'`.execute(database.db);
    const [a, b] = [aUser({ role: "ADMIN" }), aUser({ role: "ADMIN" })];
    for (const user of [a, b]) await deps.repos.users.create(user);
    const outcomes = await Promise.allSettled([
      setUserRole(deps, adminActor(a), { id: b.id }, "STAFF"),
      setUserRole(deps, adminActor(b), { id: a.id }, "STAFF"),
    ]);
    const refused = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code);
    expect({ round, refused }).toEqual({ round, refused: ["forbidden"] });
    const admins = await database.db.selectFrom("users").select("id").where("role", "=", "ADMIN").execute();
    expect(admins.length).toBe(1);
    const changes = await auditEntries(deps.repos.audit, { action: "user.role_change" });
    expect(changes.filter((c) => c.entityId === a.id || c.entityId === b.id)).toHaveLength(1);
  }
});

test("role changes that cross (each of four accounts changing the three others at once) never deadlock: each locks its caller and its target in one id-ordered statement (PostgreSQL; found by a review)", async () => {
  const deps = createPgDeps(database.db);
  const crossings: Array<[UserRole, UserRole]> = [
    ["DEVELOPER", "ADMIN"],
    ["ADMIN", "ADMIN"],
    ["DEVELOPER", "STAFF"],
  ];
  for (const [round, [role, to]] of crossings.entries()) {
    const accounts = [aUser({ role }), aUser({ role }), aUser({ role }), aUser({ role })] as User[];
    for (const user of accounts) await deps.repos.users.create(user);
    const actorOf = (user: User): Actor => ({ userId: user.id, role: user.role, permissions: new Set(DEFAULT_ROLE_PERMISSIONS[user.role]) });
    const changes = accounts.flatMap((by) => accounts.filter((other) => other !== by).map((other) => setUserRole(deps, actorOf(by), { id: other.id }, to)));
    const outcomes = await Promise.allSettled(changes);
    // A caller demoted by another first is refused (403); nothing else may go wrong, a deadlock least of all.
    const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as { code?: string }).code] : []));
    expect({ round, failures: failures.filter((code) => code !== "forbidden") }).toEqual({ round, failures: [] });
  }
}, 20_000);

test("an export's keyset batches take each account once, though creation times share a millisecond and differ in microseconds (PostgreSQL)", async () => {
  const users = createPgUserRepository(database.db);
  const made: User[] = [];
  for (let i = 0; i < 5; i++) made.push(aUser({ name: "Microsecond twin" }));
  for (const user of made) await users.create(user);
  // Rows written by SQL defaults (a seed, another tool) carry microseconds; a JavaScript Date cannot.
  await sql`update users set created_at = timestamptz '2026-02-03 04:05:06.007' + (ctid_order * interval '1 microsecond')
    from (select id as twin, row_number() over (order by id) as ctid_order from users where name = 'Microsecond twin') t
    where users.id = t.twin`.execute(database.db);
  const batches: AccountSummary[][] = [];
  for await (const batch of users.everyAccount({ q: "microsecond twin" }, 1)) batches.push(batch);
  expect(batches.map((b) => b.length)).toEqual([1, 1, 1, 1, 1]);
  const exported = batches.flat().map((a) => a.id);
  expect(exported).toEqual([...made.map((u) => u.id)].sort().reverse());
});

test("the accounts export over HTTP streams every account of several batches, once, audited once (PostgreSQL)", async () => {
  const t = createTestApp(createPgDeps(database.db));
  const admin = await signedInAs(t, "ADMIN");
  await sql`insert into users (id, email, name, role, created_at, updated_at)
    select 'bulk' || lpad(n::text, 20, '0'), 'bulk-' || n || '@example.com', 'Bulk ' || n, 'WHOLESALE', now() - n * interval '1 second', now()
    from generate_series(1, 2500) as n`.execute(database.db);
  const res = await t.app.handle(new Request("http://localhost/api/admin/users/export?role=WHOLESALE", { headers: admin.headers }));
  expect(res.status).toBe(200);
  const lines = (await res.text()).split("\r\n");
  expect(lines.length).toBe(2502);
  expect(lines.at(-1)).toBe("");
  const emails = lines.slice(1, -1).map((line) => line.split(",")[1]);
  expect(new Set(emails).size).toBe(2500);
  expect(emails[0]).toBe("bulk-1@example.com");
  expect(emails.at(-1)).toBe("bulk-2500@example.com");
  expect(await auditEntries(t.deps.repos.audit, { action: "user.export" })).toHaveLength(1);
});
