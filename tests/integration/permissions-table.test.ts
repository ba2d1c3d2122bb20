import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { createAccessResolver } from "../../src/application/auth/access.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
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
  await sql`drop table role_permissions`.execute(database.db);

  const principal = await createAccessResolver(deps).resolve({ sub: staff.id, iat: Math.floor(Date.now() / 1000) + 1 });
  expect(principal?.actor.permissions.has("products:write")).toBe(true);
  expect(principal?.actor.permissions.has("settings:write")).toBe(false);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain("empty or missing");
});
