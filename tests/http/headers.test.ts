import { describe, expect, test } from "bun:test";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { eventually } from "../support/eventually.ts";
import { createTestApp } from "../support/http.ts";

const SHOP = "https://shop.example.com";

describe("headers on every answer (decisions §10)", () => {
  test("nosniff on successes, errors and the docs alike", async () => {
    const t = createTestApp();
    for (const [method, path] of [
      ["GET", "/api/products"],
      ["GET", "/api/nowhere"],
      ["GET", "/api/cart"],
      ["POST", "/api/cart"],
      ["GET", "/api/docs"],
    ]) {
      const res = await t.call(method!, path!);
      expect({ path, nosniff: res.headers.get("x-content-type-options") }).toEqual({ path, nosniff: "nosniff" });
    }
  });

  test("no-store on answers to signed-in requests and on /api/auth/*, but not on the public catalog", async () => {
    const t = createTestApp();
    const me = await signedInAs(t);
    const noStore = async (path: string, headers = {}) => (await t.call("GET", path, { headers })).headers.get("cache-control");
    expect(await noStore("/api/cart", me.headers)).toBe("no-store");
    expect(await noStore("/api/products", me.headers)).toBe("no-store");
    expect(await noStore("/api/users/me", { authorization: `Bearer ${me.token}` })).toBe("no-store");
    expect(await noStore("/api/auth/session")).toBe("no-store");
    expect(await noStore("/api/auth/providers")).toBe("no-store");
    expect(await noStore("/api/products")).toBeNull();
  });

  test("Strict-Transport-Security only when PUBLIC_URL is https", async () => {
    const secure = createTestApp(createMemoryDeps(), { publicUrl: SHOP });
    expect((await secure.call("GET", "/api/products")).headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect((await secure.call("GET", "/api/nowhere")).headers.get("strict-transport-security")).not.toBeNull();
    expect((await createTestApp().call("GET", "/api/products")).headers.get("strict-transport-security")).toBeNull();
  });
});

describe("a known path asked with another method (decisions §10)", () => {
  test.each([
    ["DELETE", "/api/products", "GET, HEAD, POST, OPTIONS"],
    ["PATCH", "/api/cart/z12345678901234567890123", "PUT, DELETE, OPTIONS"],
    ["GET", "/api/auth/signout", "POST, OPTIONS"],
    ["PUT", "/api/health", "GET, HEAD, OPTIONS"],
  ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
    const res = await createTestApp().call(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.body.error).toBe("Method not allowed");
  });

  test("an envelope route says so in the envelope; an unknown path stays a 404", async () => {
    const t = createTestApp();
    const wrong = await t.call("DELETE", "/api/locations");
    expect(wrong.status).toBe(405);
    expect(wrong.body).toEqual({ success: false, data: null, error: "Method not allowed", details: { allow: "GET, HEAD, OPTIONS" } });
    const missing = await t.call("DELETE", "/api/no/such/thing");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "Not found" });
  });
});

describe("CORS for the origins in CORS_ORIGINS (decisions §10)", () => {
  const WEB = "https://web.example.com";
  const app = () => createTestApp(createMemoryDeps(), { corsOrigins: [WEB] });
  const corsHeaders = (headers: Headers) => [...headers.keys()].filter((k) => k.startsWith("access-control-"));

  test("a preflight from a listed origin is 204 with what it may send", async () => {
    const res = await app().call("OPTIONS", "/api/cart", {
      headers: { origin: WEB, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(res.status).toBe(204);
    expect(Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("access-control-") || k === "vary"))).toEqual({
      "access-control-allow-origin": WEB,
      "access-control-allow-credentials": "true",
      "access-control-allow-methods": "GET, HEAD, POST",
      "access-control-allow-headers": "content-type, authorization, idempotency-key",
      "access-control-max-age": "600",
      "access-control-expose-headers": "X-Request-Id, X-Total-Count, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After",
      vary: "Origin",
    });
  });

  test("answers to a listed origin carry Allow-Origin, Allow-Credentials and Expose-Headers; its cookie changes pass the CSRF check", async () => {
    const t = app();
    const me = await signedInAs(t);
    const res = await t.call("PUT", "/api/users/me", { body: { name: "From the web shop" }, headers: { ...me.headers, origin: WEB } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
  });

  test("any other origin gets no CORS header at all, preflight or not; Vary: Origin always", async () => {
    const t = app();
    const preflight = await t.call("OPTIONS", "/api/cart", { headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(corsHeaders(preflight.headers)).toEqual([]);
    const get = await t.call("GET", "/api/products", { headers: { origin: "https://evil.example" } });
    expect(corsHeaders(get.headers)).toEqual([]);
    expect(get.headers.get("vary")).toBe("Origin");
    expect((await t.call("GET", "/api/products")).headers.get("vary")).toBe("Origin");
    expect(corsHeaders((await createTestApp().call("GET", "/api/products", { headers: { origin: WEB } })).headers)).toEqual([]);
  });

  test("Vary: Origin also on an answer refused before the CORS step, a target with a fragment (found by an audit)", async () => {
    const refused = await app().call("GET", "/api/health#x");
    expect([refused.status, refused.headers.get("vary")]).toEqual([400, "Origin"]);
  });

  test("a preflight for a path the shop does not serve is a 404", async () => {
    expect((await app().call("OPTIONS", "/api/nowhere", { headers: { origin: WEB, "access-control-request-method": "GET" } })).status).toBe(404);
  });
});

describe("the request log (decisions §10)", () => {
  test("each line names the client IP, and the user whenever signed in: on public routes and refused requests too", async () => {
    const lines: Record<string, unknown>[] = [];
    const t = createTestApp(createMemoryDeps(), { logger: createJsonLogger("info", (line) => lines.push(JSON.parse(line))) });
    const me = await signedInAs(t);
    await t.call("GET", "/api/cart", { headers: { ...me.headers, "x-forwarded-for": "198.51.100.23" } });
    await t.call("GET", "/api/products", { headers: { "x-forwarded-for": "198.51.100.24" } });
    await t.call("GET", "/api/products", { headers: { ...me.headers, "x-forwarded-for": "198.51.100.25" } });
    await t.call("PUT", "/api/users/me", { body: "{", headers: { ...me.headers, "x-forwarded-for": "198.51.100.26" } });
    await eventually(() => {
      const requests = lines
        .filter((l) => l.event === "request" && String(l.ip).startsWith("198.51.100."))
        .sort((a, b) => String(a.ip).localeCompare(String(b.ip)));
      expect(requests.map((l) => [l.path, l.status, l.ip, l.userId])).toEqual([
        ["/api/cart", 200, "198.51.100.23", me.id],
        ["/api/products", 200, "198.51.100.24", undefined],
        ["/api/products", 200, "198.51.100.25", me.id],
        ["/api/users/me", 400, "198.51.100.26", me.id],
      ]);
    });
  });
});
