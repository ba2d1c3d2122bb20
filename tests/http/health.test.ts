import { afterAll, describe, expect, test } from "bun:test";
import { PROBE_WAIT_MS, createPgProbe } from "../../src/adapters/db/store.ts";
import { openDatabase } from "../../src/adapters/db/database.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { createMemoryRateLimitStore } from "../../src/adapters/ratelimit/memory-store.ts";
import { createTestApp } from "../support/http.ts";

// Nothing listens on port 1: the real driver fails to connect, as it would with the database down.
const { db: unreachable } = openDatabase({ kind: "postgres", url: "postgres://root@127.0.0.1:1/none" });
afterAll(() => unreachable.destroy());

test("health is 503 with Retry-After when the database does not answer, without leaking the cause", async () => {
  const t = createTestApp(createMemoryDeps({ database: createPgProbe(unreachable, PROBE_WAIT_MS) }));
  const res = await t.call("GET", "/api/health");
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("5");
  expect(res.body).toEqual({ status: "unavailable", error: "Database unavailable" });
});

describe("readiness", () => {
  test("ready: the database answered and is current; the rate-limit store and the outbox are reported", async () => {
    const t = createTestApp();
    await t.deps.repos.outbox.enqueue({ id: "m1", to: "ada@example.com", subject: "Welcome", text: "Hello", html: null, createdAt: new Date() });
    const res = await t.call("GET", "/api/health/ready");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ready",
      database: "ok",
      migrations: { current: true, pending: [] },
      rateLimitStore: "memory",
      outbox: { pending: 1, failed: 0 },
    });
  });

  test("Redis not answering (the counters in memory meanwhile) is reported, and is no reason to refuse traffic", async () => {
    const degraded = { ...createMemoryRateLimitStore(), state: () => "fallback" as const };
    const t = createTestApp(createMemoryDeps({ rateLimits: degraded, loginAttempts: degraded }));
    const res = await t.call("GET", "/api/health/ready");
    expect({ status: res.status, rateLimitStore: res.body.rateLimitStore }).toEqual({ status: 200, rateLimitStore: "fallback" });
  });

  test("a database that does not answer is 503 with Retry-After, without leaking the cause", async () => {
    const t = createTestApp(createMemoryDeps({ database: createPgProbe(unreachable, PROBE_WAIT_MS) }));
    const res = await t.call("GET", "/api/health/ready");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toEqual({
      status: "unavailable",
      error: "Database unavailable",
      database: "unavailable",
      migrations: null,
      rateLimitStore: "memory",
      outbox: null,
    });
  });

  test("like liveness, readiness is never rate limited (decisions §9): a load balancer asks it all day", async () => {
    const t = createTestApp(createMemoryDeps(), { rateLimit: { max: 1, windowSeconds: 900 } });
    for (let i = 0; i < 3; i++) {
      const res = await t.call("GET", "/api/health/ready");
      expect({ status: res.status, limited: res.headers.has("x-ratelimit-limit") }).toEqual({ status: 200, limited: false });
    }
    expect((await t.call("GET", "/api/products")).status).toBe(200);
    expect((await t.call("GET", "/api/products")).status).toBe(429);
  });
});

test("GET /api names the shop and its version, and links the docs page and the OpenAPI document, which answer", async () => {
  const t = createTestApp();
  const res = await t.call("GET", "/api");
  expect(res.status).toBe(200);
  const { version } = await Bun.file(`${import.meta.dir}/../../package.json`).json();
  expect(res.body).toEqual({
    name: "Storefront",
    version,
    apiVersion: "1.0",
    docs: "http://localhost:3000/api/docs",
    openapi: "http://localhost:3000/api/openapi.json",
    health: "http://localhost:3000/api/health",
  });
  for (const link of [res.body.docs, res.body.openapi, res.body.health]) {
    expect({ link, status: (await t.call("GET", new URL(link).pathname)).status }).toEqual({ link, status: 200 });
  }
});
