import { describe, expect, spyOn, test } from "bun:test";
import { RedisClient } from "bun";
import { DomainError } from "../../src/domain/errors.ts";
import type { PasswordHasher } from "../../src/application/ports/identity.ts";
import { createBcryptHasher } from "../../src/adapters/crypto/bcrypt-hasher.ts";
import { createRedisRateLimitStore } from "../../src/adapters/ratelimit/redis-store.ts";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { clientOf } from "../../src/adapters/http/plumbing/rate-limit.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { startRedisServer } from "../support/redis.ts";

const MOBILE = "StorefrontMobileApp/3.2 (iOS 19)";

async function limited(max = 3, options: { trustProxy?: boolean } = {}) {
  const t = createTestApp(createMemoryDeps(), { rateLimit: { max, windowSeconds: 900 }, trustProxy: options.trustProxy ?? true });
  const sauces = [aProduct({ slug: "first-sauce" }), aProduct({ slug: "second-sauce" })];
  for (const p of sauces) await t.deps.repos.products.create(p);
  return { ...t, sauces };
}
const from = (ip: string, more: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": ip, ...more } });

describe("rate limit (decisions §9)", () => {
  test("N requests to an endpoint pass with the limit headers; the next is 429 with Retry-After and the spec's text", async () => {
    const t = await limited(3);
    const before = Math.floor(t.deps.clock.now().getTime() / 1000);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.call("GET", "/api/products", from("203.0.113.1")));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get("x-ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
    for (const a of answers) expect(a.headers.get("x-ratelimit-limit")).toBe("3");
    const reset = Number(answers[0]!.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThanOrEqual(before + 899);
    expect(reset).toBeLessThanOrEqual(before + 901);
    // /api/products answers in the envelope (decisions §7), its 429 too; a route that does not, plainly.
    expect(answers[3]!.body).toEqual({ success: false, data: null, error: "Rate limit exceeded. Please try again later." });
    expect(answers[3]!.headers.get("retry-after")).toBe("900");
    await t.call("GET", "/api/auth/providers", from("203.0.113.1"));
    await t.call("GET", "/api/auth/providers", from("203.0.113.1"));
    await t.call("GET", "/api/auth/providers", from("203.0.113.1"));
    expect(await t.call("GET", "/api/auth/providers", from("203.0.113.1"))).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    });
  });

  test("an endpoint is a method and a route pattern: two products share one counter; another route or method has its own", async () => {
    const t = await limited(2);
    const ip = from("203.0.113.2");
    expect((await t.call("GET", "/api/products/first-sauce", ip)).status).toBe(200);
    expect((await t.call("GET", "/api/products/second-sauce", ip)).status).toBe(200);
    expect((await t.call("GET", "/api/products/first-sauce", ip)).status).toBe(429);
    expect((await t.call("GET", "/api/products", ip)).status).toBe(200);
    expect((await t.call("GET", "/api/locations", ip)).status).toBe(200);
    // HEAD runs the GET route, so it counts with GET: it is no second budget.
    expect((await t.call("HEAD", "/api/locations", ip)).status).toBe(200);
    expect((await t.call("HEAD", "/api/locations", ip)).status).toBe(429);
  });

  test("each client counts on its own; behind a trusted proxy the client is the first X-Forwarded-For address", async () => {
    const t = await limited(1);
    expect((await t.call("GET", "/api/products", from("203.0.113.3"))).status).toBe(200);
    expect((await t.call("GET", "/api/products", from("203.0.113.3, 10.0.0.1"))).status).toBe(429);
    expect((await t.call("GET", "/api/products", from("198.51.100.7"))).status).toBe(200);
  });

  test("an IPv6 client counts by its /64 (a host may take any address in it), an IPv4-mapped one as IPv4", async () => {
    const t = await limited(2);
    expect((await t.call("GET", "/api/products", from("2001:db8:1:2::1"))).status).toBe(200);
    expect((await t.call("GET", "/api/products", from("2001:0db8:0001:0002:ffff:ffff:ffff:9"))).status).toBe(200);
    expect((await t.call("GET", "/api/products", from("2001:db8:1:2:abcd::77"))).status).toBe(429);
    expect((await t.call("GET", "/api/products", from("2001:db8:1:3::1"))).status).toBe(200);
    expect(["::ffff:203.0.113.9", "0:0:0:0:0:ffff:203.0.113.9", "::FFFF:cb00:7109", "203.0.113.9"].map(clientOf)).toEqual(Array(4).fill("203.0.113.9"));
    expect(["::1", "fe80::1%eth0", "2001:db8::", "2001:db8:1:2:3:4:5:6", "64:ff9b::203.0.113.9"].map(clientOf)).toEqual([
      "0:0:0:0::/64",
      "fe80:0:0:0::/64",
      "2001:db8:0:0::/64",
      "2001:db8:1:2::/64",
      "64:ff9b:0:0::/64",
    ]);
  });

  test("a forwarded value that is no address (text, a port, brackets) is not the client: such requests count as the connection's", async () => {
    const t = await limited(2);
    const statuses = [];
    for (const forged of ["garbage1", "[10.9.9.9]", "10.9.9.9:1234"]) statuses.push((await t.call("GET", "/api/products", from(forged))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  test("with TRUST_PROXY false a forged X-Forwarded-For changes nothing: the counter stays the connection's", async () => {
    const t = await limited(2, { trustProxy: false });
    const statuses = [];
    for (const ip of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) statuses.push((await t.call("GET", "/api/products", from(ip))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  test("health, webhooks and CORS preflights are not limited, and carry no limit headers", async () => {
    const t = await limited(1);
    for (let i = 0; i < 3; i++) {
      const health = await t.call("GET", "/api/health", from("203.0.113.4"));
      expect([health.status, health.headers.get("x-ratelimit-limit")]).toEqual([200, null]);
      expect((await t.call("POST", "/api/webhooks/stripe", { ...from("203.0.113.4"), body: "{}" })).status).toBe(400);
      expect(
        (await t.call("OPTIONS", "/api/products", from("203.0.113.4", { origin: "https://app.example.com", "access-control-request-method": "POST" }))).status,
      ).toBe(204);
    }
  });

  test("nor is another method at those routes: 405 each time, never 429 (found by a spec audit)", async () => {
    const t = await limited(1);
    for (let i = 0; i < 3; i++) {
      for (const [method, path] of [
        ["POST", "/api/health"],
        ["DELETE", "/api/health/ready"],
        ["GET", "/api/webhooks/stripe"],
      ] as const) {
        const answer = await t.call(method, path, from("203.0.113.5"));
        expect([method, path, answer.status, answer.headers.get("x-ratelimit-limit")]).toEqual([method, path, 405, null]);
      }
    }
  });

  test("only those routes: a path that merely starts like them is limited, and so is an OPTIONS to no route", async () => {
    const t = await limited(2);
    const statuses = [];
    for (const path of ["/api/healthcheck", "/api/health-anything", "/api/webhooks/stripe/extra", "/api/webhooks/fedex"])
      statuses.push((await t.call("GET", path, from("203.0.113.14"))).status);
    expect(statuses).toEqual([404, 404, 429, 429]);
    const options = [];
    for (let i = 0; i < 3; i++) options.push((await t.call("OPTIONS", "/api/no-such-route", from("203.0.113.15"))).status);
    expect(options).toEqual([404, 404, 429]);
  });

  test("the mobile app is exempt only with both its User-Agent marker and a live session", async () => {
    const t = await limited(1);
    const shopper = await signedInAs(t);
    const exempt = { ...shopper.headers, "user-agent": MOBILE, "x-forwarded-for": "203.0.113.5" };
    for (let i = 0; i < 3; i++) {
      const res = await t.call("GET", "/api/cart", { headers: exempt });
      expect([res.status, res.headers.get("x-ratelimit-limit")]).toEqual([200, null]);
    }
    // The marker alone (no session) is limited as anyone is.
    const anonymous = { "user-agent": MOBILE, "x-forwarded-for": "203.0.113.6" };
    expect([
      (await t.call("GET", "/api/products", { headers: anonymous })).status,
      (await t.call("GET", "/api/products", { headers: anonymous })).status,
    ]).toEqual([200, 429]);
    // A session without the marker is limited too.
    const browser = { ...shopper.headers, "x-forwarded-for": "203.0.113.7" };
    expect([(await t.call("GET", "/api/cart", { headers: browser })).status, (await t.call("GET", "/api/cart", { headers: browser })).status]).toEqual([
      200, 429,
    ]);
    // A session that has ended is no session.
    await t.call("POST", "/api/auth/signout", { headers: shopper.headers });
    const ended = { ...exempt, "x-forwarded-for": "203.0.113.8" };
    expect([(await t.call("GET", "/api/products", { headers: ended })).status, (await t.call("GET", "/api/products", { headers: ended })).status]).toEqual([
      200, 429,
    ]);
  });

  test("not where passwords are checked or accounts made: a free account and the marker do not buy unlimited guesses, sign-ups or password changes", async () => {
    const t = await limited(1);
    const shopper = await signedInAs(t);
    const exempt = { ...shopper.headers, "user-agent": MOBILE, "x-forwarded-for": "203.0.113.10" };
    const signIns = [];
    for (let i = 0; i < 3; i++)
      signIns.push(
        (await t.call("POST", "/api/auth/callback/credentials", { headers: exempt, body: { email: `guess${i}@example.com`, password: "wrong password" } }))
          .status,
      );
    expect(signIns).toEqual([401, 429, 429]);
    const signUps = [];
    for (let i = 0; i < 3; i++)
      signUps.push(
        (await t.call("POST", "/api/auth/register", { headers: exempt, body: { email: `new${i}@example.com`, password: "sauce lover 99" } })).status,
      );
    expect(signUps).toEqual([201, 429, 429]);
    expect((await t.deps.repos.outbox.list()).filter((m) => m.to.startsWith("new"))).toHaveLength(1);
    const changes = [];
    for (let i = 0; i < 2; i++)
      changes.push(
        (await t.call("POST", "/api/users/password", { headers: exempt, body: { currentPassword: "wrong", newPassword: "another sauce 99" } })).status,
      );
    expect(changes[1]).toBe(429);
  });

  test("requests to no route count together, so scanning for paths is limited as well", async () => {
    const t = await limited(2);
    const statuses = [];
    for (const path of ["/api/nope", "/api/admin", "/api/.env"]) statuses.push((await t.call("GET", path, from("203.0.113.9"))).status);
    expect(statuses).toEqual([404, 404, 429]);
  });
});

describe("the password routes' own limit (decisions §15)", () => {
  const passwordLimited = (passwordMax: number, max = 100, deps = createMemoryDeps()) =>
    createTestApp(deps, { rateLimit: { max, passwordMax, windowSeconds: 900 }, trustProxy: true });

  test("sign-in, registration and password change: N per client and window pass with the limit headers; the next is 429 with Retry-After and the spec's text", async () => {
    const t = passwordLimited(3);
    const shopper = await signedInAs(t);
    const routes = [
      { path: "/api/auth/callback/credentials", body: (i: number) => ({ email: `guess${i}@example.com`, password: "wrong password" }), status: 401 },
      { path: "/api/auth/register", body: (i: number) => ({ email: `new${i}@example.com`, password: "sauce lover 99" }), status: 201 },
      { path: "/api/users/password", body: () => ({ currentPassword: "wrong", newPassword: "another sauce 99" }), status: 400, headers: shopper.headers },
    ];
    for (const [n, route] of routes.entries()) {
      const before = Math.floor(t.deps.clock.now().getTime() / 1000);
      const answers = [];
      for (let i = 0; i < 4; i++)
        answers.push(await t.call("POST", route.path, { headers: { ...route.headers, "x-forwarded-for": `203.0.113.${40 + n}` }, body: route.body(i) }));
      expect({ path: route.path, statuses: answers.map((a) => a.status) }).toEqual({
        path: route.path,
        statuses: [route.status, route.status, route.status, 429],
      });
      expect(answers.map((a) => [a.headers.get("x-ratelimit-limit"), a.headers.get("x-ratelimit-remaining")])).toEqual([
        ["3", "2"],
        ["3", "1"],
        ["3", "0"],
        ["3", "0"],
      ]);
      expect(Number(answers[3]!.headers.get("x-ratelimit-reset"))).toBeWithin(before + 899, before + 902);
      expect(answers[3]!.headers.get("retry-after")).toBe("900");
      const text = "Rate limit exceeded. Please try again later.";
      // The password change answers in the envelope (decisions §7), its 429 too.
      expect(answers[3]!.body).toEqual(route.path === "/api/users/password" ? { success: false, data: null, error: text } : { error: text });
    }
  });

  test("the three routes share one count per client, whichever is asked; other routes and other clients are not touched by it", async () => {
    const t = passwordLimited(3);
    const shopper = await signedInAs(t);
    const ip = { "x-forwarded-for": "203.0.113.50" };
    const statuses = [
      (await t.call("POST", "/api/auth/callback/credentials", { headers: ip, body: { email: "a@example.com", password: "wrong password" } })).status,
      (await t.call("POST", "/api/auth/register", { headers: ip, body: { email: "b@example.com", password: "sauce lover 99" } })).status,
      (
        await t.call("POST", "/api/users/password", {
          headers: { ...ip, ...shopper.headers },
          body: { currentPassword: "wrong", newPassword: "another sauce 99" },
        })
      ).status,
      (await t.call("POST", "/api/auth/callback/credentials", { headers: ip, body: { email: "a@example.com", password: "wrong password" } })).status,
    ];
    expect(statuses).toEqual([401, 201, 400, 429]);
    expect((await t.call("GET", "/api/products", { headers: ip })).status).toBe(200);
    expect((await t.call("POST", "/api/auth/signout", { headers: ip })).status).toBe(200);
    expect(
      (await t.call("POST", "/api/auth/callback/credentials", { ...from("203.0.113.51"), body: { email: "a@example.com", password: "wrong password" } }))
        .status,
    ).toBe(401);
  });

  test("both limits apply and the tighter bites first: the headers are those of the limit nearer its end", async () => {
    const signIn = (t: TestApp) =>
      t.call("POST", "/api/auth/callback/credentials", { ...from("203.0.113.52"), body: { email: "a@example.com", password: "wrong" } });
    const generalTighter = passwordLimited(5, 2);
    const first = [await signIn(generalTighter), await signIn(generalTighter), await signIn(generalTighter)];
    expect(first.map((a) => [a.status, a.headers.get("x-ratelimit-limit"), a.headers.get("x-ratelimit-remaining")])).toEqual([
      [401, "2", "1"],
      [401, "2", "0"],
      [429, "2", "0"],
    ]);
    const passwordTighter = passwordLimited(2, 3);
    const second = [await signIn(passwordTighter), await signIn(passwordTighter), await signIn(passwordTighter)];
    expect(second.map((a) => [a.status, a.headers.get("x-ratelimit-limit"), a.headers.get("x-ratelimit-remaining")])).toEqual([
      [401, "2", "1"],
      [401, "2", "0"],
      [429, "2", "0"],
    ]);
  });

  test("the mobile app's marker and a session never lift it, and it holds with the per-endpoint limit off; PASSWORD_RATE_LIMIT_MAX=0 turns it off", async () => {
    const t = passwordLimited(2, 0);
    const shopper = await signedInAs(t);
    const exempt = { ...shopper.headers, "user-agent": MOBILE, "x-forwarded-for": "203.0.113.53" };
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await t.call("POST", "/api/auth/callback/credentials", { headers: exempt, body: { email: "a@example.com", password: "wrong" } })).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await t.call("GET", "/api/products", { headers: exempt })).headers.get("x-ratelimit-limit")).toBeNull();
    const off = passwordLimited(0);
    for (let i = 0; i < 4; i++) {
      const res = await off.call("POST", "/api/auth/callback/credentials", { ...from("203.0.113.54"), body: { email: "a@example.com", password: "wrong" } });
      expect([res.status, res.headers.get("x-ratelimit-limit")]).toEqual([401, "100"]);
    }
  });

  test("two instances counting in one Redis share it: N in all, the next refused on whichever instance gets it", async () => {
    const server = await startRedisServer();
    const client = new RedisClient(server.url);
    try {
      await client.connect();
      const counters = createRedisRateLimitStore(client, `password-limit-test:${crypto.randomUUID()}:`);
      const instances = [0, 1].map(() => passwordLimited(3, 100, createMemoryDeps({ rateLimits: counters })));
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (
            await instances[i % 2]!.call("POST", "/api/auth/callback/credentials", {
              ...from("203.0.113.55"),
              body: { email: "a@example.com", password: "wrong" },
            })
          ).status,
        );
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

test("a sign-in refused because the hasher's queue is full is 503 with Retry-After, at once, logged as a refusal (a warning, no stack), not a failure", async () => {
  const deps = createMemoryDeps();
  const t = createTestApp(deps);
  const shopper = await signedInAs(t);
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger("info", (line) => lines.push(JSON.parse(line)));
  const busy = createTestApp(
    {
      ...deps,
      hasher: {
        ...deps.hasher,
        verify: () => Promise.reject(new DomainError("auth.busy", "Too many sign-ins at once; please try again in a moment", { retryAfterSeconds: 1 })),
      },
    },
    { logger },
  );
  const res = await busy.call("POST", "/api/auth/callback/credentials", { body: { email: shopper.email, password: shopper.password } });
  expect([res.status, res.body, res.headers.get("retry-after")]).toEqual([503, { error: "Too many sign-ins at once; please try again in a moment" }, "1"]);
  expect(lines.filter((line) => line.level === "error")).toEqual([]);
  expect(lines.find((line) => line.event === "request.refused")).toMatchObject({ level: "warn", code: "auth.busy", path: "/api/auth/callback/credentials" });
  expect(JSON.stringify(lines)).not.toContain("stack");
});

test("the line for a password check is fair (decisions §15): while a client's check waits, its next is 429 with Retry-After; other clients still get in", async () => {
  const deps = createMemoryDeps();
  const shopper = await signedInAs(createTestApp(deps));
  // bcrypt's queue (one lane) over a bcrypt that answers when the test says; `asked` lists each check as it reaches the queue.
  const answer = Promise.withResolvers<void>();
  const bcrypt = spyOn(Bun.password, "verify").mockImplementation(
    async (password, hash) => (await answer.promise, deps.hasher.verify([String(password)], String(hash))),
  );
  const queue = createBcryptHasher({ concurrency: 1 });
  const asked: string[] = [];
  const hasher: PasswordHasher = { ...queue, verify: (password, hash, client) => (asked.push(String(client)), queue.verify(password, hash, client)) };
  try {
    const t = createTestApp({ ...deps, hasher });
    const signIn = (ip: string, password: string) =>
      t.call("POST", "/api/auth/callback/credentials", { ...from(ip), body: { email: shopper.email, password } });
    const inLane = signIn("198.51.100.30", "a wrong guess");
    await eventually(() => expect(asked).toHaveLength(1));
    const waiting = signIn("2001:db8:5:6::1", shopper.password);
    await eventually(() => expect(asked).toHaveLength(2));
    // The same /64 is the same client, as for the rate limit.
    const second = await signIn("2001:db8:5:6::2", shopper.password);
    expect([second.status, second.body, second.headers.get("retry-after")]).toEqual([
      429,
      {
        error: "Rate limit exceeded. Please try again later.",
        details: { reason: "Another password check from your address is still waiting", retryAfterSeconds: 1 },
      },
      "1",
    ]);
    const other = signIn("203.0.113.31", shopper.password);
    await eventually(() => expect(asked).toHaveLength(4));
    answer.resolve();
    expect([(await inLane).status, (await waiting).status, (await other).status]).toEqual([401, 200, 200]);
  } finally {
    bcrypt.mockRestore();
  }
});
