import { beforeEach, describe, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
beforeEach(async () => {
  t = createTestApp();
  me = await signedInAs(t);
});

/** Sends raw bytes, as an attacker would, past the JSON encoding of the test helper. */
async function raw(method: string, path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  const res = await t.app.handle(new Request(`http://localhost${path}`, { method, body, headers: { "content-type": "application/json", ...headers } }));
  const text = await res.text();
  return { status: res.status, size: text.length, body: JSON.parse(text) };
}

describe("JSON input the shop refuses with a 400 (decisions §10)", () => {
  test("a lone UTF-16 surrogate, on profile change, sign-in and registration alike; nothing is stored", async () => {
    const lone = (path: string, body: string) => raw("POST", path, body);
    const profile = await raw("PUT", "/api/users/me", '{"name":"Ann \\ud800"}', me.headers);
    expect(profile.status).toBe(400);
    expect(profile.body.details.issues).toEqual([{ path: "name", message: "must not contain a lone UTF-16 surrogate" }]);
    expect((await lone("/api/auth/callback/credentials", `{"email":"${me.email}","password":"\\udfff"}`)).status).toBe(400);
    const registered = await lone("/api/auth/register", '{"email":"new@example.com","password":"correct horse","name":"\\ud83d"}');
    expect(registered.status).toBe(400);
    expect(t.deps.state.users.size).toBe(1);
    expect((await t.call("GET", "/api/users/me", { headers: me.headers })).body.data.name).toBe("CUSTOMER");
  });

  test("200,000 nested arrays are a 400 naming the depth, not a 500", async () => {
    const res = await raw("POST", "/api/cart", `${"[".repeat(200_000)}${"]".repeat(200_000)}`, me.headers);
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: expect.any(String), message: "must not be nested more than 32 levels deep" }]);
  });

  test("5,000 NUL strings inside nesting get an answer of at most 20 issues, however large the request, signed in or not", async () => {
    const body = JSON.stringify({ a: [{ b: Array.from({ length: 5_000 }, () => ["x\u0000y"]) }] });
    for (const headers of [{}, me.headers]) {
      const res = await raw("POST", "/api/cart", body, headers);
      expect(res.status).toBe(400);
      expect(res.body.details.issues).toHaveLength(20);
      expect(res.size).toBeLessThan(2_500);
    }
  });

  test("a field name 100,000 characters long is named in the answer cut short", async () => {
    const res = await raw("POST", "/api/cart", JSON.stringify({ quantity: 1, productId: aProduct().id, ["k".repeat(100_000)]: 1 }), me.headers);
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path.length).toBeLessThanOrEqual(200);
    expect(res.size).toBeLessThan(1_000);
  });

  test("forms are held to UTF-8 too: a stray byte in a multipart part, or %FF and an encoded surrogate in a URL-encoded one", async () => {
    const multipart = Buffer.concat([
      Buffer.from('--XX\r\nContent-Disposition: form-data; name="email"\r\n\r\na'),
      Buffer.from([0xff]),
      Buffer.from("b\r\n--XX--\r\n"),
    ]);
    const refused = await raw("POST", "/api/auth/callback/credentials", multipart, { "content-type": "multipart/form-data; boundary=XX" });
    expect(refused.status).toBe(400);
    for (const form of [`email=a%FFb&password=x`, `email=${encodeURIComponent(me.email)}&password=%ED%A0%80`]) {
      const res = await raw("POST", "/api/auth/callback/credentials", form, { "content-type": "application/x-www-form-urlencoded" });
      expect({ form, status: res.status, error: res.body.error }).toEqual({ form, status: 400, error: "Request body is not valid UTF-8" });
    }
  });

  test("control characters are refused (tab and line breaks aside), in any field", async () => {
    for (const name of ["Bell\u0007", "Esc\u001b[31m", "Del\u007f", "C1\u009b2J", "Next line\u0085"]) {
      const res = await t.call("PUT", "/api/users/me", { body: { name }, headers: me.headers });
      expect({ name, status: res.status, issues: res.body.details?.issues }).toEqual({
        name,
        status: 400,
        issues: [{ path: "name", message: "must not contain control characters" }],
      });
    }
  });

  test("a field name cut short in the answer is never cut inside a character", async () => {
    const res = await raw("PUT", "/api/users/me", JSON.stringify({ ["😀".repeat(300)]: 1 }), me.headers);
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path.isWellFormed()).toBe(true);
  });

  test("a GET or HEAD that says it has a body is a 400: nothing would read it; the answer is as any other's (envelope, CORS)", async () => {
    // The fetch API will not build a GET with a body; the header is what a raw client sends with one.
    for (const method of ["GET", "HEAD"]) {
      const withBody = await t.app.handle(
        new Request("http://localhost/api/products", { method, headers: { "content-length": "7", "content-type": "application/json" } }),
      );
      expect({ method, status: withBody.status }).toEqual({ method, status: 400 });
    }
    expect((await t.app.handle(new Request("http://localhost/api/products", { headers: { "content-length": "0" } }))).status).toBe(200);

    const web = "https://web.example.com";
    const withCors = createTestApp(createMemoryDeps(), { corsOrigins: [web] });
    const getWithBody = (path: string) =>
      withCors.app.handle(new Request(`http://localhost${path}`, { headers: { "content-length": "2", "content-type": "application/json", origin: web } }));
    const enveloped = await getWithBody("/api/products");
    expect(await enveloped.json()).toEqual({ success: false, data: null, error: "A GET request takes no body" });
    expect(enveloped.headers.get("access-control-allow-origin")).toBe(web);
    expect(enveloped.headers.get("vary")).toBe("Origin");
    expect(await (await getWithBody("/api/orders")).json()).toEqual({ error: "A GET request takes no body" });
  });

  test("bytes that are not UTF-8 are a 400", async () => {
    const res = await raw("PUT", "/api/users/me", new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), me.headers);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Request body is not valid UTF-8");
  });
});

describe("unknown fields (decisions §10)", () => {
  test("are refused on the cart, naming each, and change nothing", async () => {
    const sauce = aProduct({ inventory: 5 });
    await t.deps.repos.products.create(sauce);
    const add = await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1, price: 0.01 }, headers: me.headers });
    expect(add.status).toBe(400);
    expect(add.body.details.issues).toEqual([{ path: "price", message: "is not a known field" }]);
    const line = (await t.call("POST", "/api/cart/items", { body: { productId: sauce.id, quantity: 1 }, headers: me.headers })).body.cartItem;
    const update = await t.call("PUT", `/api/cart/${line.id}`, { body: { quantity: 2, userId: "someone-else", productId: sauce.id }, headers: me.headers });
    expect(update.status).toBe(400);
    expect(update.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["productId", "userId"]);
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.totalQuantity).toBe(1);
  });

  test("are refused on routes that take no body at all, which then change nothing", async () => {
    const sauce = aProduct({ inventory: 5 });
    await t.deps.repos.products.create(sauce);
    const line = (await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: me.headers })).body.cartItem;
    for (const path of [`/api/cart/${line.id}`, `/api/cart/items/${line.id}`]) {
      const res = await t.call("DELETE", path, { body: { userId: "someone-else" }, headers: me.headers });
      expect(res.status).toBe(400);
      expect(res.body.details.issues).toEqual([{ path: "userId", message: "is not a known field" }]);
    }
    expect((await t.call("DELETE", `/api/cart/${line.id}`, { body: {}, headers: me.headers })).status).toBe(200);
  });

  test("are ignored by the two sign-in forms, as NextAuth-style clients send extras", async () => {
    const res = await t.call("POST", "/api/auth/callback/credentials", {
      body: { email: me.email, password: me.password, csrfToken: "x", callbackUrl: "/", json: "true" },
    });
    expect(res.status).toBe(200);
    const registered = await t.call("POST", "/api/auth/register", { body: { email: "extra@example.com", password: "correct horse", csrfToken: "x" } });
    expect(registered.status).toBe(201);
  });
});

describe("common passwords (decisions §10)", () => {
  test.each(["password1", "12345678", "Iloveyou"])("registering with %p is a 400 naming the password", async (password) => {
    const res = await t.call("POST", "/api/auth/register", { body: { email: "new@example.com", password } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Invalid request",
      details: { issues: [{ path: "password", message: "Password is too common; choose one that is harder to guess" }] },
    });
  });

  test("a password change to one is a 400 naming newPassword, and the old password still works", async () => {
    const res = await t.call("POST", "/api/users/password", { body: { currentPassword: me.password, newPassword: "qwertyuiop" }, headers: me.headers });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "newPassword", message: "Password is too common; choose one that is harder to guess" }]);
    expect((await t.call("POST", "/api/auth/callback/credentials", { body: { email: me.email, password: me.password } })).status).toBe(200);
  });
});

describe("media types", () => {
  test("a JSON route refuses a form or text body with 415 naming JSON, so a page elsewhere cannot post one without a preflight", async () => {
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", "currentPassword=x&newPassword=y"],
      ["text/plain", '{"name":"x"}'],
    ] as const) {
      const path = type === "text/plain" ? "/api/users/me" : "/api/users/password";
      const res = await t.call(type === "text/plain" ? "PUT" : "POST", path, { body, headers: { ...me.headers, "content-type": type } });
      expect({ type, status: res.status, accepted: res.body.details?.accepted }).toEqual({ type, status: 415, accepted: ["application/json"] });
    }
  });

  test("a body in another charset or a content encoding is 415, never read as UTF-8 JSON by mistake; UTF-8 said aloud is fine", async () => {
    const body = JSON.stringify({ name: "José" });
    const latin1 = await raw("PUT", "/api/users/me", body, { ...me.headers, "content-type": "application/json; charset=latin1" });
    expect([latin1.status, latin1.body]).toEqual([
      415,
      { success: false, data: null, error: "Unsupported content type", details: { charset: "latin1", accepted: ["utf-8"] } },
    ]);
    const gzip = await raw("PUT", "/api/users/me", body, { ...me.headers, "content-encoding": "gzip" });
    expect([gzip.status, gzip.body.error]).toEqual([415, "Unsupported content encoding"]);
    const utf8 = await raw("PUT", "/api/users/me", body, { ...me.headers, "content-type": 'application/json; charset="UTF-8"' });
    expect([utf8.status, utf8.body.data.name]).toEqual([200, "José"]);
    const ascii = await raw("PUT", "/api/users/me", JSON.stringify({ name: "Jose" }), { ...me.headers, "content-type": "application/json; charset=us-ascii" });
    expect(ascii.status).toBe(200);
    const quoted = await raw("PUT", "/api/users/me", body, { ...me.headers, "content-type": 'application/json;charset="ISO-8859-1"' });
    expect([quoted.status, quoted.body.details]).toEqual([415, { charset: "iso-8859-1", accepted: ["utf-8"] }]);
  });

  test("a query string that is not UTF-8 (a stray byte, an encoded lone surrogate, a broken escape) is 400; UTF-8 escapes are read", async () => {
    for (const query of ["search=%FF", "search=%ED%A0%80", "search=50%"]) {
      const res = await t.call("GET", `/api/products?${query}`);
      expect({ query, status: res.status, error: res.body.error }).toEqual({ query, status: 400, error: "Query string is not valid UTF-8" });
    }
    expect((await t.call("GET", "/api/products?search=caf%C3%A9")).status).toBe(200);
  });

  test("a query value is its text as sent: a comma, brackets or braces in a search are searched for, on every route that searches", async () => {
    const admin = await signedInAs(t, "ADMIN");
    const product = aProduct({ name: "Salt, Pepper [and] Fire" });
    await t.deps.repos.products.create(product);
    const customer = await signedInAs(t, "CUSTOMER", "ann.smith@example.com");
    await t.deps.repos.users.update(customer.id, { name: "Smith, Ann {Jr}", updatedAt: new Date() });
    const found = async (path: string) => {
      const res = await t.call("GET", path, { headers: admin.headers });
      return { path, status: res.status, found: res.body.data?.length };
    };
    for (const [path, count] of [
      ["/api/products?search=Salt%2C%20Pepper", 1],
      ["/api/products?search=%5Band%5D", 1],
      ["/api/admin/products?q=Salt,%20Pepper", 1],
      ["/api/admin/users?q=Smith,%20Ann", 1],
      ["/api/admin/users?q=%7BJr%7D", 1],
      // Text in brackets is not a list of what it holds: ["Salt"] matches no name.
      ["/api/admin/products?q=%5B%22Salt%22%5D", 0],
      ["/api/admin/orders?q=%5B%5D", 0],
      ["/api/admin/audit?entityId=a,b", 0],
    ] as const) {
      expect(await found(path)).toEqual({ path, status: 200, found: count });
    }
    // A blank search is no search, on each back-office list as on the orders queue.
    for (const list of ["users", "products", "orders"]) {
      const all = (await t.call("GET", `/api/admin/${list}`, { headers: admin.headers })).body.meta.total;
      const blank = await t.call("GET", `/api/admin/${list}?q=%20%20`, { headers: admin.headers });
      expect({ list, status: blank.status, total: blank.body.meta?.total }).toEqual({ list, status: 200, total: all });
    }
    // A key given twice is a list where the field takes one (the queue's statuses), else a 400 naming it.
    expect((await found("/api/admin/orders?status=PENDING&status=CONFIRMED")).status).toBe(200);
    // A list with a bad value names what is wrong with it, as the one value does (found by an attack: it said "must be given once").
    for (const [path, one] of [
      ["/api/admin/orders?status=PENDING&status=PAID", "/api/admin/orders?status=PAID"],
      ["/api/admin/orders/export?status=PENDING&status=PAID", "/api/admin/orders/export?status=PAID"],
      ["/api/admin/orders?from=2026-01-01&from=2026-02-01", "/api/admin/orders?from=2026-01-01,2026-02-01"],
    ] as const) {
      const listed = await t.call("GET", path, { headers: admin.headers });
      const single = await t.call("GET", one, { headers: admin.headers });
      expect({ path, status: listed.status, issues: listed.body.details?.issues }).toEqual({ path, status: 400, issues: single.body.details.issues });
      expect(listed.body.details.issues[0].message).not.toBe("must be given once");
    }
    expect((await t.call("GET", "/api/admin/users?q=a&q=b", { headers: admin.headers })).body.details.issues).toEqual([
      { path: "q", message: "must be given once" },
    ]);
    expect((await t.call("GET", "/api/products?page=1&page=2")).body.details.issues).toEqual([{ path: "page", message: "must be given once" }]);
  });

  test("sign-in reads JSON and both kinds of form, as it declares", async () => {
    const form = new URLSearchParams({ email: me.email, password: me.password }).toString();
    const res = await t.call("POST", "/api/auth/callback/credentials", { body: form, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(200);
    const text = await t.call("POST", "/api/auth/callback/credentials", { body: form, headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    expect(text.body.details.accepted).toEqual(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]);
  });
});
