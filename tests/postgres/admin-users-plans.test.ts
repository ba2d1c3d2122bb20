import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, Kysely, PostgresDialect } from "kysely";
import { accountsPage } from "../../src/adapters/db/account-queries.ts";
import { createPgUserRepository } from "../../src/adapters/db/user-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, poolOn } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
const ran: CompiledQuery[] = [];

beforeAll(async () => {
  // Thousands of customers and a single ADMIN: the planner takes a role for most accounts.
  database = await createTestDatabase({ history: { orders: 30_000, customers: 3_000, until: new Date("2026-11-20T12:00:00Z") } });
  spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: poolOn(database, 2) }),
    log: (event) => void (event.level === "query" && ran.push(event.query)),
  });
}, 30_000);
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

// The back office lists the accounts of one role, newest first. The plan made once for every role
// took the role for most accounts and walked every account newest first, filtering: for the few
// STAFF of 47,000 accounts, 47,000 pages and 34 ms a page. The role is written into the statement, and its index read.
test("the accounts of one role are read from the index by role, newest first, even in the plan made once for every role (PostgreSQL)", async () => {
  const plan = await genericPlanOf(spy, ran, () => accountsPage(spy, { role: "STAFF" }, { page: 1, limit: 20 }));
  expect(plan).toContain("users_role_created_idx");
  expect(plan).not.toContain("Seq Scan on users");
  expect(plan).not.toMatch(/users_created_idx on users[^\n]*\n\s+Filter/);
});

// A role change that takes an account out of ADMIN locks the caller, the target and every ADMIN. The
// plan made once for every role took the role for most accounts and walked every account in id order
// (47,000 pages and 54 ms a role change at 47,000 accounts). The role is written into the statement.
test("a role change locks its accounts and the ADMINs by index look-ups, even in the plan made once (PostgreSQL)", async () => {
  const users = createPgUserRepository(spy);
  const plan = await genericPlanOf(spy, ran, () => users.lockInIdOrder(["a".repeat(24), "b".repeat(24)], "ADMIN"));
  expect(plan).toContain("users_role_created_idx");
  expect(plan).not.toContain("Seq Scan on users");
  expect(plan).not.toMatch(/users_pkey on users[^\n]*\n\s+Filter/);
});
