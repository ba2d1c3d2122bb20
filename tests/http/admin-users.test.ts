import { beforeEach, describe, expect, test } from "bun:test";
import { DEFAULT_ROLE_PERMISSIONS, type Permission } from "../../src/domain/permissions.ts";
import { USER_ROLES, type UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

let t: TestApp;
beforeEach(() => {
  t = createTestApp();
});

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
const origin = { ipAddress: null, userAgent: null };

/** The role-permission table filled with the defaults, and the extras given (an empty table means the defaults, with nothing granted). */
async function grant(extras: Array<[UserRole, Permission]>) {
  for (const role of USER_ROLES) for (const permission of DEFAULT_ROLE_PERMISSIONS[role]) await t.deps.repos.permissions.grant(role, permission);
  for (const [role, permission] of extras) await t.deps.repos.permissions.grant(role, permission);
}

/** A request's raw answer: the text exactly as sent. */
async function raw(path: string, init: RequestInit = {}) {
  const res = await t.app.handle(new Request(`http://localhost${path}`, init));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("GET /api/admin/users (users:read)", () => {
  test("the envelope with paging; each account with its figures; q and role alone and combined", async () => {
    const staff = await signedInAs(t, "STAFF", "staff@example.com");
    const grace = await signedInAs(t, "CUSTOMER", "grace@navy.example");
    const sauce = aProduct({ inventory: 10 });
    await t.deps.repos.products.create(sauce);
    const line = await t.useCases.addToCart(grace.id, { productId: sauce.id, quantity: 2 }, origin);
    const placed = await t.useCases.placeOrder(grace.id, { cartItemIds: [line.id], shippingAddress: texas }, origin);
    const paid = await t.call("POST", "/api/payment", { body: { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, headers: grace.headers });
    expect(paid.body.order.paymentStatus).toBe("PAID");

    const all = await t.call("GET", "/api/admin/users", { headers: staff.headers });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ success: true, error: null, meta: { total: 2, page: 1, limit: 20 } });
    const listedGrace = all.body.data.find((a: { id: string }) => a.id === grace.id);
    expect(listedGrace).toEqual({
      id: grace.id,
      email: "grace@navy.example",
      name: "CUSTOMER",
      role: "CUSTOMER",
      image: null,
      isEmailVerified: false,
      hasPassword: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      orderCount: 1,
      totalSpent: (await t.deps.repos.orders.findById(placed.orderId))!.total / 100,
      lastOrderAt: expect.any(String),
    });

    const emails = async (query: string) =>
      (await t.call("GET", `/api/admin/users?${query}`, { headers: staff.headers })).body.data.map((a: { email: string }) => a.email);
    expect(await emails("q=NAVY")).toEqual(["grace@navy.example"]);
    expect(await emails("role=STAFF")).toEqual(["staff@example.com"]);
    expect(await emails("q=example&role=CUSTOMER")).toEqual(["grace@navy.example"]);
    expect(await emails("q=staff&role=CUSTOMER")).toEqual([]);
    const paged = await t.call("GET", "/api/admin/users?limit=1&page=2", { headers: staff.headers });
    expect([paged.body.meta, paged.body.data.length]).toEqual([{ total: 2, page: 2, limit: 1 }, 1]);
  });

  test("bad filters are 400 in the envelope, naming the field", async () => {
    const staff = await signedInAs(t, "STAFF");
    for (const query of ["role=admin", "role=EMPEROR", `q=${"x".repeat(101)}`, "limit=0", "page=x"]) {
      const res = await t.call("GET", `/api/admin/users?${query}`, { headers: staff.headers });
      expect({ query, status: res.status, success: res.body.success }).toEqual({ query, status: 400, success: false });
      expect(res.body.details.issues[0].path).toBe(query.split("=")[0]);
    }
  });
});

describe("GET /api/admin/users/:id (users:read)", () => {
  test("the account and its 20 latest orders, newest first; an unknown id 404, a malformed one 400", async () => {
    const staff = await signedInAs(t, "STAFF");
    const customer = aUser();
    await t.deps.repos.users.create(customer);
    const sauce = aProduct({ inventory: 100 });
    await t.deps.repos.products.create(sauce);
    const numbers: string[] = [];
    for (let i = 0; i < 22; i++) {
      const line = await t.useCases.addToCart(customer.id, { productId: sauce.id, quantity: 1 }, origin);
      numbers.push((await t.useCases.placeOrder(customer.id, { cartItemIds: [line.id], shippingAddress: texas }, origin)).orderNumber);
      // Each paid, so the customer may place the next (MAX_UNPAID_ORDERS).
      const placed = (await t.deps.repos.orders.findByNumber(numbers.at(-1)!))!;
      await t.deps.repos.orders.update(placed.id, { status: "CONFIRMED", paymentStatus: "PAID", updatedAt: t.deps.clock.now() });
      t.deps.clock.advance(1_000);
    }
    const res = await t.call("GET", `/api/admin/users/${customer.id}`, { headers: staff.headers });
    expect(res.status).toBe(200);
    expect(res.body.data.account).toMatchObject({ id: customer.id, email: customer.email, orderCount: 22 });
    expect(res.body.data.orders.map((o: { orderNumber: string }) => o.orderNumber)).toEqual(numbers.slice(2).reverse());
    expect(res.body.data.orders[0]).toMatchObject({ status: "CONFIRMED", items: [expect.objectContaining({ productId: sauce.id })] });

    const unknown = await t.call("GET", "/api/admin/users/z12345678901234567890123", { headers: staff.headers });
    expect([unknown.status, unknown.body]).toEqual([404, { success: false, data: null, error: "User not found" }]);
    expect((await t.call("GET", "/api/admin/users/not-an-id", { headers: staff.headers })).status).toBe(400);
  });
});

describe("PUT /api/admin/users/:id/role (users:write)", () => {
  test("an ADMIN promotes an account: the answer is the account, the change audited with who, before and after, from where", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const customer = await signedInAs(t, "CUSTOMER");
    const res = await t.call("PUT", `/api/admin/users/${customer.id}/role`, {
      body: { role: "DEVELOPER" },
      headers: { ...admin.headers, "user-agent": "back-office", "x-forwarded-for": "203.0.113.5" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, data: { id: customer.id, email: customer.email, role: "DEVELOPER", hasPassword: true } });
    const [entry] = await auditEntries(t.deps.repos.audit, { action: "user.role_change" });
    expect(entry).toMatchObject({
      userId: admin.id,
      entityType: "user",
      entityId: customer.id,
      changes: { from: "CUSTOMER", to: "DEVELOPER" },
      ipAddress: "203.0.113.5",
      userAgent: "back-office",
    });
  });

  test("STAFF granted users:write moves customers, but cannot make anyone ADMIN or DEVELOPER nor demote one (403); nothing changes", async () => {
    await grant([["STAFF", "users:write"]]);
    const staff = await signedInAs(t, "STAFF");
    const customer = await signedInAs(t, "CUSTOMER");
    const admin = await signedInAs(t, "ADMIN");
    const developer = await signedInAs(t, "DEVELOPER");
    const put = (id: string, role: string) => t.call("PUT", `/api/admin/users/${id}/role`, { body: { role }, headers: staff.headers });

    expect((await put(customer.id, "WHOLESALE")).status).toBe(200);
    for (const [id, role] of [
      [customer.id, "ADMIN"],
      [customer.id, "DEVELOPER"],
      [staff.id, "ADMIN"],
      [admin.id, "STAFF"],
      [developer.id, "CUSTOMER"],
    ] as const) {
      const res = await put(id, role);
      expect({ role, status: res.status, error: res.body.error }).toEqual({
        role,
        status: 403,
        error: "Only an ADMIN or DEVELOPER may give or take away the ADMIN or DEVELOPER role",
      });
    }
    const roles = await Promise.all([customer, staff, admin, developer].map(async (a) => (await t.deps.repos.users.findById(a.id))?.role));
    expect(roles).toEqual(["WHOLESALE", "STAFF", "ADMIN", "DEVELOPER"]);
  });

  test("the last ADMIN cannot be demoted, not even by itself: 409 in the envelope", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const res = await t.call("PUT", `/api/admin/users/${admin.id}/role`, { body: { role: "DEVELOPER" }, headers: admin.headers });
    expect([res.status, res.body]).toEqual([409, { success: false, data: null, error: "The last ADMIN cannot be demoted; make another account ADMIN first" }]);
    expect((await t.deps.repos.users.findById(admin.id))?.role).toBe("ADMIN");
  });

  test("a body with another field, an unknown role or a malformed id is 400; an unknown account 404", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const customer = await signedInAs(t);
    const put = (id: string, body: unknown) => t.call("PUT", `/api/admin/users/${id}/role`, { body, headers: admin.headers });
    expect((await put(customer.id, { role: "STAFF", email: "x@example.com" })).status).toBe(400);
    expect((await put(customer.id, { role: "OWNER" })).status).toBe(400);
    expect((await put(customer.id, {})).status).toBe(400);
    expect((await put("nope", { role: "STAFF" })).status).toBe(400);
    expect((await put("z12345678901234567890123", { role: "STAFF" })).status).toBe(404);
  });

  test("a demoted account's live session loses the permission: at once on the instance that made the change, within 30 s on another", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const staff = await signedInAs(t, "STAFF");
    const other = createTestApp(t.deps);
    for (const app of [t, other]) expect((await app.call("GET", "/api/admin/users", { headers: staff.headers })).status).toBe(200);

    const demoted = await t.call("PUT", `/api/admin/users/${staff.id}/role`, { body: { role: "CUSTOMER" }, headers: admin.headers });
    expect(demoted.status).toBe(200);
    expect((await t.call("GET", "/api/admin/users", { headers: staff.headers })).status).toBe(403);

    t.deps.clock.advance(30_001);
    expect((await other.call("GET", "/api/admin/users", { headers: staff.headers })).status).toBe(403);
    expect((await other.call("GET", "/api/auth/session", { headers: staff.headers })).body.user.role).toBe("CUSTOMER");
  });

  test("an ADMIN demoted on one instance cannot, within its session's 30 s on another, make itself or anyone else ADMIN again (found by an attack)", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const second = await signedInAs(t, "ADMIN");
    const customer = await signedInAs(t, "CUSTOMER");
    const other = createTestApp(t.deps);
    expect((await other.call("GET", "/api/admin/users", { headers: second.headers })).status).toBe(200);
    expect((await t.call("PUT", `/api/admin/users/${second.id}/role`, { body: { role: "CUSTOMER" }, headers: admin.headers })).status).toBe(200);

    // The other instance still holds the session's role, and lets it read for up to 30 s, as documented…
    expect((await other.call("GET", "/api/admin/users", { headers: second.headers })).status).toBe(200);
    // …but no role is given or taken away on it.
    for (const [target, role] of [
      [second.id, "ADMIN"],
      [customer.id, "ADMIN"],
      [admin.id, "CUSTOMER"],
    ] as const) {
      const refused = await other.call("PUT", `/api/admin/users/${target}/role`, { body: { role }, headers: second.headers });
      expect([refused.status, refused.body.error]).toEqual([403, "Insufficient permissions"]);
    }
    const roles = await Promise.all([second, customer, admin].map(async (u) => (await t.deps.repos.users.findById(u.id))?.role));
    expect(roles).toEqual(["CUSTOMER", "CUSTOMER", "ADMIN"]);
    expect(await auditEntries(t.deps.repos.audit, { action: "user.role_change" })).toHaveLength(1);
  });
});

describe("GET /api/admin/users/export (users:export)", () => {
  test("loaded by a browser as a picture (a product's image set to the export's address), it is refused and runs nothing; as a link or a fetch, it runs (found by an attack)", async () => {
    const admin = await signedInAs(t, "ADMIN", "admin@example.com");
    for (const destination of ["image", "script", "style", "video"]) {
      const res = await t.call("GET", "/api/admin/users/export?role=ADMIN", { headers: { ...admin.headers, "sec-fetch-dest": destination } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: "The API answers scripts and pages, not a browser's image, script or style",
        details: { secFetchDest: destination },
      });
    }
    expect(await auditEntries(t.deps.repos.audit, { action: "user.export" })).toEqual([]);
    for (const destination of ["document", "empty"]) {
      expect((await raw("/api/admin/users/export?role=ADMIN", { headers: { ...admin.headers, "sec-fetch-dest": destination } })).status).toBe(200);
    }
    expect(await auditEntries(t.deps.repos.audit, { action: "user.export" })).toHaveLength(2);
  });

  test("CSV of the filtered accounts: RFC 4180 quoting, formula cells neutralized, non-ASCII as it is; a dated download; audited with its filters", async () => {
    const admin = await signedInAs(t, "ADMIN", "admin@example.com");
    const at = (second: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, second));
    const accounts = [
      aUser({ email: "quotes@example.com", name: 'Doe, "Jr"', createdAt: at(1), updatedAt: at(1) }),
      aUser({ email: "lines@example.com", name: "First line\nSecond line", createdAt: at(2), updatedAt: at(2) }),
      aUser({ email: "formula@example.com", name: '=HYPERLINK("http://evil.example","open me")', createdAt: at(3), updatedAt: at(3) }),
      aUser({ email: "+1-555@example.com", name: "@SUM(A1:A9)", createdAt: at(4), updatedAt: at(4) }),
      aUser({ email: "-minus@example.com", name: "\tTabbed", createdAt: at(5), updatedAt: at(5), passwordHash: null }),
      aUser({ email: "zoe@example.com", name: "Zoë Ångström 🌶️", role: "WHOLESALE", createdAt: at(6), updatedAt: at(6), isEmailVerified: true }),
    ];
    for (const user of accounts) await t.deps.repos.users.create(user);
    t.deps.clock.set(new Date("2026-11-25T08:00:00Z"));

    const res = await raw("/api/admin/users/export?role=CUSTOMER", { headers: { ...admin.headers, "user-agent": "curl/8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="users-20261125.csv"');
    const [a, b, c, d, e] = accounts.map((u) => u.id);
    const created = (second: number) => at(second).toISOString();
    expect(res.text).toBe(
      [
        "id,email,name,role,emailVerified,hasPassword,orderCount,totalSpent,lastOrderAt,createdAt",
        `${e},'-minus@example.com,'\tTabbed,CUSTOMER,false,false,0,0.00,,${created(5)}`,
        `${d},'+1-555@example.com,'@SUM(A1:A9),CUSTOMER,false,true,0,0.00,,${created(4)}`,
        `${c},formula@example.com,"'=HYPERLINK(""http://evil.example"",""open me"")",CUSTOMER,false,true,0,0.00,,${created(3)}`,
        `${b},lines@example.com,"First line\nSecond line",CUSTOMER,false,true,0,0.00,,${created(2)}`,
        `${a},quotes@example.com,"Doe, ""Jr""",CUSTOMER,false,true,0,0.00,,${created(1)}`,
        "",
      ].join("\r\n"),
    );
    t.deps.clock.advance(1_000);
    const zoe = await raw("/api/admin/users/export?q=zo%C3%AB", { headers: admin.headers });
    expect(zoe.text.split("\r\n")[1]).toBe(`${accounts[5]!.id},zoe@example.com,Zoë Ångström 🌶️,WHOLESALE,true,true,0,0.00,,${created(6)}`);

    const exports = await auditEntries(t.deps.repos.audit, { action: "user.export" });
    expect(exports.map((x) => [x.userId, x.changes, x.userAgent]).reverse()).toEqual([
      [admin.id, { filters: { role: "CUSTOMER" } }, "curl/8"],
      [admin.id, { filters: { q: "zoë" } }, null],
    ]);
  });

  test("refused (403, nothing recorded) to STAFF, who may read accounts but not export them by default", async () => {
    const staff = await signedInAs(t, "STAFF");
    const res = await t.call("GET", "/api/admin/users/export", { headers: staff.headers });
    expect([res.status, res.body.success]).toEqual([403, false]);
    expect(await auditEntries(t.deps.repos.audit, { action: "user.export" })).toEqual([]);
  });
});

test("no answer of the back office's account and audit routes carries a password hash or a session", async () => {
  const admin = await signedInAs(t, "ADMIN");
  const customer = await signedInAs(t, "CUSTOMER");
  const stored = (await t.deps.repos.users.findById(customer.id))!;
  await t.call("PUT", `/api/admin/users/${customer.id}/role`, { body: { role: "STAFF" }, headers: admin.headers });
  const answers = [
    await raw("/api/admin/users", { headers: admin.headers }),
    await raw(`/api/admin/users/${customer.id}`, { headers: admin.headers }),
    await raw(`/api/admin/users/${customer.id}/role`, {
      method: "PUT",
      body: JSON.stringify({ role: "WHOLESALE" }),
      headers: { ...admin.headers, "content-type": "application/json" },
    }),
    await raw("/api/admin/users/export", { headers: admin.headers }),
    await raw("/api/admin/audit?limit=100", { headers: admin.headers }),
  ];
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    for (const secret of ["passwordHash", "password_hash", stored.passwordHash!, customer.token, customer.sid, admin.token, admin.sid]) {
      expect(answer.text).not.toContain(secret);
    }
  }
  expect(answers[4]!.text).toContain("auth.login");
});
