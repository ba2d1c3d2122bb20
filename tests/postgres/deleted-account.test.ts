import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("a token of an account deleted behind the shop's back is 401 on every route, never a 500 (PostgreSQL)", async () => {
  const t = createTestApp(createPgDeps(database.db));
  const me = await signedInAs(t);
  const sauce = aProduct({ inventory: 5 });
  await t.deps.repos.products.create(sauce);
  expect((await t.call("GET", "/api/cart", { headers: me.headers })).status).toBe(200);

  await sql`delete from users where id = ${me.id}`.execute(database.db);
  // Within the 30 s the instance trusts its cache, a write for the vanished account is refused by the database…
  const add = await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: me.headers });
  expect(add.status).toBe(401);
  expect(add.body).toEqual({ error: "Unauthorized - authentication required" });
  const profile = await t.call("PUT", "/api/users/me", { body: { name: "Ghost" }, headers: me.headers });
  expect(profile.status).toBe(401);
  expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(401);

  // …and a fresh look finds neither the session nor the account.
  const fresh = createTestApp(createPgDeps(database.db));
  for (const [method, path] of [
    ["GET", "/api/cart"],
    ["GET", "/api/users/me"],
    ["POST", "/api/auth/signout"],
  ] as const) {
    const res = await fresh.call(method, path, {
      headers: { authorization: `Bearer ${me.token}` },
      body: method === "POST" ? { everywhere: true } : undefined,
    });
    expect({ path, status: res.status }).toEqual({ path, status: 401 });
  }
});
