import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { defaultRolePermissions, loadRolePermissions } from "../../src/application/permissions/role-permissions.ts";
import { createPgUnitOfWork } from "../../src/adapters/db/store.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { newSession } from "../../src/domain/session.ts";
import { aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("with the role-permission table gone, the built-in defaults apply and one warning says so (PostgreSQL)", async () => {
  const warnings: string[] = [];
  const deps = { ...createPgDeps(database.db), logger: createJsonLogger("warn", (line) => warnings.push(line)) };
  const staff = aUser({ role: "STAFF" });
  await deps.repos.users.create(staff);
  const session = newSession(deps.ids.next(), staff.id, deps.clock.now());
  await deps.repos.sessions.create(session);
  await sql`drop table role_permissions`.execute(database.db);

  const principal = await createAccessResolver(deps).resolve({ sub: staff.id, sid: session.id });
  expect(principal?.actor.permissions.has("products:write")).toBe(true);
  expect(principal?.actor.permissions.has("settings:write")).toBe(false);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain("empty or missing");
});

describe("the role-permission table as migrated", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  test("holds exactly the spec's defaults by role", async () => {
    const loaded = await loadRolePermissions({ uow: createPgUnitOfWork(database.db) });
    expect(loaded.fromDefaults).toBe(false);
    for (const [role, permissions] of defaultRolePermissions) {
      expect({ role, permissions: [...(loaded.permissions.get(role) ?? [])].sort() }).toEqual({ role, permissions: [...permissions].sort() });
    }
  });
});
