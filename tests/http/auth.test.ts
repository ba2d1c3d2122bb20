import { beforeEach, describe, expect, test } from "bun:test";
import { craftToken, sessionCookieOf, signedInAs } from "../support/accounts.ts";
import { SESSION_COOKIE, type TestApp, createTestApp } from "../support/http.ts";
import { DEFAULT_ROLE_PERMISSIONS, PERMISSIONS } from "../../src/domain/permissions.ts";
import { USER_ROLES } from "../../src/domain/user.ts";
import { auditEntries } from "../support/audit.ts";

let t: TestApp;
beforeEach(() => {
  t = createTestApp();
});

const UNAUTHORIZED = { error: "Unauthorized - authentication required" };

describe("POST /api/auth/register", () => {
  test("201 with the new CUSTOMER and no session cookie", async () => {
    const res = await t.call("POST", "/api/auth/register", { body: { email: " New@Example.com ", password: "longenough", name: "Nia" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ user: { id: expect.any(String), email: "new@example.com", name: "Nia", role: "CUSTOMER" } });
    expect(sessionCookieOf(res.headers)).toBeNull();
    expect(await t.deps.repos.outbox.list()).toHaveLength(1);
  });

  test("a blank name, as a form's empty field sends it, is no name: 201, not 'is required' for a field that is optional (found by an attack)", async () => {
    for (const [email, name] of [
      ["blank@example.com", ""],
      ["spaces@example.com", "   "],
    ]) {
      const res = await t.call("POST", "/api/auth/register", { body: { email, password: "longenough", name } });
      expect([res.status, res.body.user?.name]).toEqual([201, null]);
    }
    const tooLong = await t.call("POST", "/api/auth/register", { body: { email: "long@example.com", password: "longenough", name: "x".repeat(101) } });
    expect(tooLong.body.details.issues).toEqual([{ path: "name", message: "must be at most 100 characters" }]);
    // One line: a name holding a line break could pass for two lines of a list (found by an attack).
    const twoLines = await t.call("POST", "/api/auth/register", {
      body: { email: "lines@example.com", password: "longenough", name: "Bob\nfake@evil.test   ADMIN" },
    });
    expect(twoLines.body.details.issues).toEqual([{ path: "name", message: "must be one line" }]);
  });

  test("a taken e-mail is 409", async () => {
    await t.call("POST", "/api/auth/register", { body: { email: "a@example.com", password: "longenough" } });
    const res = await t.call("POST", "/api/auth/register", { body: { email: "A@example.com", password: "longenough" } });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("An account with this email already exists");
  });

  test.each([
    [{ email: "not-an-email", password: "longenough" }, "email"],
    [{ email: "a@example.com", password: "short" }, "password"],
    [{ password: "longenough" }, "email"],
    [{ email: "a@example.com", password: "é".repeat(37) }, "password"],
    [{ email: `${"a".repeat(250)}@example.com`, password: "longenough" }, "email"],
    [{ email: "a@example.com", password: "        " }, "password"],
  ])("invalid body %j is 400 naming %s", async (body, field) => {
    const res = await t.call("POST", "/api/auth/register", { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: any) => i.path)).toContain(field);
  });

  test("a bad address is one issue, whichever check finds it: the shape, or the 64 characters before the @", async () => {
    for (const email of ["not-an-email", `${"a".repeat(65)}@example.com`]) {
      const res = await t.call("POST", "/api/auth/register", { body: { email, password: "longenough" } });
      expect({ email, issues: res.body.details.issues }).toEqual({ email, issues: [{ path: "email", message: "Invalid email address" }] });
    }
  });
});

describe("POST /api/auth/callback/credentials", () => {
  test("JSON sign-in sets an HttpOnly, SameSite=Lax, 30-day cookie and returns the user", async () => {
    await t.call("POST", "/api/auth/register", { body: { email: "ada@example.com", password: "correct horse" } });
    const res = await t.call("POST", "/api/auth/callback/credentials", { body: { email: " ADA@example.com ", password: "correct horse" } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: "ada@example.com", role: "CUSTOMER" });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${30 * 24 * 3600}`);
    expect(cookie).not.toContain("Secure");
  });

  test("form-encoded sign-in works too", async () => {
    await t.call("POST", "/api/auth/register", { body: { email: "ada@example.com", password: "correct horse" } });
    const res = await t.call("POST", "/api/auth/callback/credentials", {
      body: "email=ada%40example.com&password=correct+horse",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
    expect(sessionCookieOf(res.headers)).not.toBeNull();
  });

  test("bad credentials are 401 with one message; the sixth try in 15 minutes is 429", async () => {
    await t.call("POST", "/api/auth/register", { body: { email: "ada@example.com", password: "correct horse" } });
    for (const body of [
      { email: "ada@example.com", password: "wrong" },
      { email: "ghost@example.com", password: "whatever" },
    ]) {
      const res = await t.call("POST", "/api/auth/callback/credentials", { body });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Invalid email or password" });
    }
    for (let i = 0; i < 4; i++) await t.call("POST", "/api/auth/callback/credentials", { body: { email: " ADA@example.com", password: "wrong" } });
    const locked = await t.call("POST", "/api/auth/callback/credentials", { body: { email: "ada@example.com", password: "correct horse" } });
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("900");
  });
});

test("the lockout's 429 carries the spec's Retry-After: 900, however long the five failures took (found by an audit)", async () => {
  for (let i = 0; i < 5; i++) {
    await t.call("POST", "/api/auth/callback/credentials", { body: { email: "ada@example.com", password: "wrong" } });
    t.deps.clock.advance(61_000);
  }
  const locked = await t.call("POST", "/api/auth/callback/credentials", { body: { email: "ada@example.com", password: "wrong" } });
  expect([locked.status, locked.headers.get("retry-after")]).toEqual([429, "900"]);
});

describe("sessions", () => {
  test("GET /api/auth/session gives the user and expiry, or {} without a session", async () => {
    const me = await signedInAs(t, "CUSTOMER", "ada@example.com");
    const res = await t.call("GET", "/api/auth/session", { headers: me.headers });
    expect(res.body.user).toEqual({ id: me.id, email: "ada@example.com", name: "CUSTOMER", role: "CUSTOMER" });
    const issuedAt = Math.floor(t.deps.clock.now().getTime() / 1000) * 1000;
    expect(Date.parse(res.body.expires) - issuedAt).toBe(30 * 86_400_000);
    expect((await t.call("GET", "/api/auth/session")).body).toEqual({});
  });

  test("the same token works as a Bearer token", async () => {
    const me = await signedInAs(t);
    const token = me.cookie.split("=")[1];
    const res = await t.call("GET", "/api/users/me", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(me.id);
  });

  test("sign-out ends the session on the server: the same token is then 401 as cookie and as Bearer", async () => {
    const me = await signedInAs(t);
    const bearer = { authorization: `Bearer ${me.token}` };
    expect((await t.call("GET", "/api/users/me", { headers: bearer })).status).toBe(200);
    const res = await t.call("POST", "/api/auth/signout", { headers: me.headers });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))).toContain("Max-Age=0");
    for (const headers of [me.headers, bearer]) expect((await t.call("GET", "/api/users/me", { headers })).status).toBe(401);
    expect((await t.call("GET", "/api/auth/session", { headers: me.headers })).body).toEqual({});
  });

  test("sign-out with a Bearer token ends that session; other sessions of the account live on", async () => {
    const me = await signedInAs(t);
    const laptop =
      sessionCookieOf((await t.call("POST", "/api/auth/callback/credentials", { body: { email: me.email, password: me.password } })).headers) ?? "";
    expect((await t.call("POST", "/api/auth/signout", { headers: { authorization: `Bearer ${me.token}` } })).status).toBe(200);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(401);
    expect((await t.call("GET", "/api/users/me", { headers: { cookie: laptop } })).status).toBe(200);
  });

  test('{ "everywhere": true } ends every session of the account', async () => {
    const me = await signedInAs(t);
    const laptop =
      sessionCookieOf((await t.call("POST", "/api/auth/callback/credentials", { body: { email: me.email, password: me.password } })).headers) ?? "";
    const res = await t.call("POST", "/api/auth/signout", { body: { everywhere: true }, headers: me.headers });
    expect(res.status).toBe(200);
    for (const cookie of [me.cookie, laptop]) expect((await t.call("GET", "/api/users/me", { headers: { cookie } })).status).toBe(401);
  });

  test("sign-out without a session just clears the cookie; everywhere without one is 401; an unknown field is 400", async () => {
    expect((await t.call("POST", "/api/auth/signout")).status).toBe(200);
    expect((await t.call("POST", "/api/auth/signout", { body: { everywhere: true } })).status).toBe(401);
    const me = await signedInAs(t);
    const res = await t.call("POST", "/api/auth/signout", { body: { everywhere: true, all: 1 }, headers: me.headers });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "all", message: "is not a known field" }]);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(200);
  });

  test("sign-in, registration and sign-out from a foreign page are refused, cookie or not (login CSRF)", async () => {
    const me = await signedInAs(t);
    const evil = { origin: "https://evil.example" };
    const signIn = await t.call("POST", "/api/auth/callback/credentials", {
      body: `email=${encodeURIComponent(me.email)}&password=${encodeURIComponent(me.password)}`,
      headers: { ...evil, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(signIn.status).toBe(403);
    expect(signIn.body.error).toBe("Cross-site request refused");
    expect(sessionCookieOf(signIn.headers)).toBeNull();
    const register = await t.call("POST", "/api/auth/register", { body: { email: "csrf@example.com", password: "correct horse" }, headers: evil });
    expect(register.status).toBe(403);
    expect(t.deps.state.users.size).toBe(1);
    for (const headers of [evil, { ...me.headers, ...evil }]) {
      const signOut = await t.call("POST", "/api/auth/signout", { headers });
      expect(signOut.status).toBe(403);
      expect(signOut.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    }
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(200);
    const own = await t.call("POST", "/api/auth/signout", { headers: { ...me.headers, origin: "http://localhost:3000" } });
    expect(own.status).toBe(200);
  });

  test("a protected route without a session is 401 with the spec's text", async () => {
    const res = await t.call("GET", "/api/users/me");
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject(UNAUTHORIZED);
  });

  test("expired, tampered, wrongly signed, alg:none and over-long tokens are all 401", async () => {
    const me = await signedInAs(t);
    const now = t.deps.clock.now();
    const claims = { sub: me.id, sid: me.sid, email: me.email, role: "ADMIN" };
    const valid = await craftToken(claims, now);
    const [header, payload, signature] = valid.split(".") as [string, string, string];
    const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), sub: "someone-else" })).toString("base64url");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    const tokens = {
      expired: await craftToken(claims, now, { iat: -7200, exp: -3600 }),
      tampered: `${header}.${elevated}.${signature}`,
      "wrong key": await craftToken(claims, now, { secret: "another-secret-that-is-32-characters-long!" }),
      "alg none": none,
      garbage: "not.a.jwt",
      "no iat": await craftToken(claims, now, { iat: null }),
      "valid for a year": await craftToken(claims, now, { exp: 365 * 24 * 3600 }),
    };
    expect((await t.call("GET", "/api/users/me", { headers: { authorization: `Bearer ${valid}` } })).status).toBe(200);
    for (const [kind, token] of Object.entries(tokens)) {
      const carriers: Record<string, string>[] = [{ authorization: `Bearer ${token}` }, { cookie: `${SESSION_COOKIE}=${token}` }];
      for (const headers of carriers) {
        const res = await t.call("GET", "/api/users/me", { headers });
        expect({ kind, status: res.status }).toEqual({ kind, status: 401 });
      }
    }
  });

  test("a session lasts 30 days by the shop's clock, whatever the date", async () => {
    t.deps.clock.set(new Date("2031-03-01T08:00:00Z"));
    const me = await signedInAs(t);
    t.deps.clock.advance(29 * 24 * 3600 * 1000);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(200);
    t.deps.clock.advance(2 * 24 * 3600 * 1000);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(401);
  });

  test("a token without a role claim is authorized with the role from the database", async () => {
    const me = await signedInAs(t, "STAFF");
    const token = await craftToken({ sub: me.id, sid: me.sid, email: me.email }, t.deps.clock.now());
    const res = await t.call("GET", "/api/auth/session", { headers: { authorization: `Bearer ${token}` } });
    expect(res.body.user.role).toBe("STAFF");
  });

  test("cookie-authenticated changes from a foreign Origin are refused (CSRF); same origin and Bearer pass", async () => {
    const me = await signedInAs(t);
    const change = { body: { name: "Changed" } };
    const foreign = await t.call("PUT", "/api/users/me", { ...change, headers: { ...me.headers, origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe("Cross-site request refused");
    const same = await t.call("PUT", "/api/users/me", { ...change, headers: { ...me.headers, origin: "http://localhost:3000" } });
    expect(same.status).toBe(200);
    const bearer = await t.call("PUT", "/api/users/me", {
      ...change,
      headers: { authorization: `Bearer ${me.cookie.split("=")[1]}`, origin: "https://evil.example" },
    });
    expect(bearer.status).toBe(200);
  });

  test("a cookie-authenticated change from an opaque origin (Origin: null, as a sandboxed frame or a data: page sends) is refused (CSRF)", async () => {
    const me = await signedInAs(t);
    const opaque = await t.call("PUT", "/api/users/me", { body: { name: "Changed" }, headers: { ...me.headers, origin: "null" } });
    expect([opaque.status, opaque.body.error]).toEqual([403, "Cross-site request refused"]);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).body.data.name).toBe("CUSTOMER");
  });

  test("a role change in the database takes effect without signing in again", async () => {
    const me = await signedInAs(t, "CUSTOMER");
    const product = { name: "New Sauce", sku: "NEW-1", price: 9.99, featuredImage: "https://img.example.com/n.jpg", heatLevel: 2, inventory: 5 };
    expect((await t.call("POST", "/api/products", { body: product, headers: me.headers })).status).toBe(403);
    await t.useCases.setUserRole({ userId: null, role: "SYSTEM", permissions: new Set(["users:write"]) }, { email: me.email }, "STAFF");
    expect((await t.call("POST", "/api/products", { body: product, headers: me.headers })).status).toBe(201);
  });

  test("a sign-in in the same second as a password change, after it, is not ended with the old sessions", async () => {
    const me = await signedInAs(t);
    t.deps.clock.set(new Date("2026-11-22T12:00:05.300Z"));
    const changed = await t.call("POST", "/api/users/password", {
      body: { currentPassword: me.password, newPassword: "a brand new one" },
      headers: me.headers,
    });
    expect(changed.status).toBe(200);
    t.deps.clock.advance(200);
    const again = await t.call("POST", "/api/auth/callback/credentials", { body: { email: me.email, password: "a brand new one" } });
    const cookie = sessionCookieOf(again.headers) ?? "";
    expect((await t.call("GET", "/api/users/me", { headers: { cookie } })).status).toBe(200);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(401);
  });

  test("a demotion written straight to the database (the CLI, another instance) takes effect within 30 s, no sign-in needed", async () => {
    const staff = await signedInAs(t, "STAFF");
    const product = (n: number) => ({
      name: `Sauce ${n}`,
      sku: `S-${n}`,
      price: 9.99,
      featuredImage: "https://img.example.com/s.jpg",
      heatLevel: 2,
      inventory: 5,
    });
    expect((await t.call("POST", "/api/products", { body: product(1), headers: staff.headers })).status).toBe(201);
    await t.deps.repos.users.update(staff.id, { role: "CUSTOMER", updatedAt: t.deps.clock.now() });
    t.deps.clock.advance(30_001);
    expect((await t.call("POST", "/api/products", { body: product(2), headers: staff.headers })).status).toBe(403);
    expect((await t.call("GET", "/api/auth/session", { headers: staff.headers })).body.user.role).toBe("CUSTOMER");
  });

  test("a password change ends other sessions and re-issues this one", async () => {
    const me = await signedInAs(t);
    const other = await t.call("POST", "/api/auth/callback/credentials", { body: { email: me.email, password: me.password } });
    const otherCookie = sessionCookieOf(other.headers) ?? "";
    t.deps.clock.advance(2_000);
    const res = await t.call("POST", "/api/users/password", { body: { currentPassword: me.password, newPassword: "a brand new one" }, headers: me.headers });
    expect(res.status).toBe(200);
    const renewed = sessionCookieOf(res.headers) ?? "";
    expect((await t.call("GET", "/api/users/me", { headers: { cookie: renewed } })).status).toBe(200);
    expect((await t.call("GET", "/api/users/me", { headers: { cookie: otherCookie } })).status).toBe(401);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).status).toBe(401);
    const wrong = await t.call("POST", "/api/users/password", {
      body: { currentPassword: "nope", newPassword: "another new one" },
      headers: { cookie: renewed },
    });
    expect(wrong.status).toBe(400);
  });

  test("guessing the current password with a session is 429 with Retry-After after five wrong tries", async () => {
    const me = await signedInAs(t);
    const change = (currentPassword: string) =>
      t.call("POST", "/api/users/password", { body: { currentPassword, newPassword: "a brand new one" }, headers: me.headers });
    for (let i = 0; i < 5; i++) expect((await change(`guess ${i}`)).status).toBe(400);
    const refused = await change(me.password);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      success: false,
      data: null,
      error: "Rate limit exceeded. Please try again later.",
      details: { reason: "Too many failed sign-in attempts for this e-mail" },
    });
    expect(refused.headers.get("retry-after")).toBe("900");
  });

  test("a new password that could never be set is refused first, naming it, and checks (and counts) no current password", async () => {
    const me = await signedInAs(t);
    for (let i = 0; i < 6; i++) {
      const res = await t.call("POST", "/api/users/password", { body: { currentPassword: `guess ${i}`, newPassword: "short" }, headers: me.headers });
      expect([res.status, res.body.details?.issues?.[0]?.path]).toEqual([400, "newPassword"]);
    }
    // Six of them, and the account is not locked: none was a guess at the current password.
    const changed = await t.call("POST", "/api/users/password", {
      body: { currentPassword: me.password, newPassword: "a brand new one" },
      headers: me.headers,
    });
    expect(changed.status).toBe(200);
  });
});

describe("/api/users/me", () => {
  test("GET returns the profile in the envelope; PUT changes name and image only", async () => {
    const me = await signedInAs(t, "CUSTOMER", "ada@example.com");
    const got = await t.call("GET", "/api/users/me", { headers: me.headers });
    expect(got.body).toMatchObject({ success: true, error: null, data: { id: me.id, email: "ada@example.com", role: "CUSTOMER", hasPassword: true } });
    const put = await t.call("PUT", "/api/users/me", { body: { name: "Ada Lovelace", image: "https://img.example.com/ada.png" }, headers: me.headers });
    expect(put.body.data).toMatchObject({ name: "Ada Lovelace", image: "https://img.example.com/ada.png" });
    const [audit] = await auditEntries(t.deps.repos.audit, { action: "user.update" });
    expect(audit?.changes).toEqual({ name: "Ada Lovelace", image: "https://img.example.com/ada.png" });
    // A blank name takes it away, as null does.
    expect((await t.call("PUT", "/api/users/me", { body: { name: "  " }, headers: me.headers })).body.data).toMatchObject({ name: null });
  });

  test("the profile says what the account's role may do now: a client draws only the controls it can use", async () => {
    for (const role of USER_ROLES) for (const permission of DEFAULT_ROLE_PERMISSIONS[role]) await t.deps.repos.permissions.grant(role, permission);
    await t.deps.repos.permissions.grant("STAFF", "financials:refunds");
    const permissionsOf = async (role: (typeof USER_ROLES)[number]) => {
      const me = await signedInAs(t, role);
      return (await t.call("GET", "/api/users/me", { headers: me.headers })).body.data.permissions;
    };
    expect(await permissionsOf("CUSTOMER")).toEqual([]);
    expect(await permissionsOf("ADMIN")).toEqual([...PERMISSIONS]);
    const staff = await permissionsOf("STAFF");
    expect(staff).toEqual(expect.arrayContaining(["orders:read", "orders:write", "financials:refunds"]));
    expect(staff).not.toContain("settings:read");
    expect(staff).not.toContain("users:write");
    const me = await signedInAs(t, "STAFF");
    const put = await t.call("PUT", "/api/users/me", { body: { name: "Grace" }, headers: me.headers });
    expect(put.body.data.permissions).toEqual(staff);
  });

  test.each([{ role: "ADMIN" }, { email: "x@example.com" }, { name: "ok", isEmailVerified: true }, { image: "javascript:alert(1)" }])(
    "PUT with %j is 400 and changes nothing",
    async (body) => {
      const me = await signedInAs(t);
      const res = await t.call("PUT", "/api/users/me", { body, headers: me.headers });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      const after = await t.call("GET", "/api/users/me", { headers: me.headers });
      expect(after.body.data).toMatchObject({ role: "CUSTOMER", name: "CUSTOMER", isEmailVerified: false });
    },
  );
});
