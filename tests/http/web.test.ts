import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type WebBuild, buildWebApps, withWebApps } from "../../src/adapters/http/web.ts";
import { SESSION_COOKIE, call, createTestApp } from "../support/http.ts";
import { connection } from "../support/raw-http.ts";

// Decisions §13 and issue 21: the web adapter serves both apps beside the API, unchanged.
const ROOT = join(import.meta.dir, "../..");
const cacheDir = mkdtempSync(join(tmpdir(), "web-cache-"));
let build: WebBuild;
let shop: ReturnType<typeof withWebApps>;
let withStripe: ReturnType<typeof withWebApps>;

beforeAll(async () => {
  build = await buildWebApps({ sourceDir: join(ROOT, "web"), cacheDir, lockFile: join(ROOT, "package-lock.json") });
  shop = withWebApps(createTestApp().app, build, { stripe: false, sessionCookieName: SESSION_COOKIE });
  withStripe = withWebApps(createTestApp().app, build, { stripe: true, sessionCookieName: SESSION_COOKIE });
}, 20_000);
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) => call(shop, "GET", path, { headers });
const scriptOf = (html: string) => /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];

function expectOnEverything(headers: Headers) {
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self';");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).not.toContain("unsafe-eval");
  expect(csp).not.toContain("stripe");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
}

describe("the pages", () => {
  test("a browser's pictures, scripts and styles load from the pages and the API's docs, never from the API itself (Sec-Fetch-Dest)", async () => {
    const script = scriptOf((await get("/")).body)!;
    expect((await get(script, { "sec-fetch-dest": "script" })).status).toBe(200);
    const docs: string = (await get("/api/docs", { "sec-fetch-dest": "document" })).body;
    const docsAssets = [...docs.matchAll(/(?:src|href)="(\/api\/docs\/assets\/[^"]+)"/g)].map(([, path]) => path!);
    expect(docsAssets.length).toBeGreaterThan(0);
    for (const asset of docsAssets) expect((await get(asset, { "sec-fetch-dest": asset.endsWith(".css") ? "style" : "script" })).status).toBe(200);
    expect((await get("/api/products", { "sec-fetch-dest": "empty" })).status).toBe(200);
    expect((await get("/api/products", { "sec-fetch-dest": "image" })).status).toBe(400);
  });

  test("/ is the storefront's page, never stored, with the CSP and nosniff", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expectOnEverything(page.headers);
    expect(page.body).toContain('<div id="app">');
    expect(scriptOf(page.body)).toStartWith("/assets/storefront/");
  });

  test("any other path outside /api and /admin is the storefront's page, so it routes on the client", async () => {
    const home = (await get("/")).body;
    for (const path of ["/products/caribbean-habanero-hot-sauce", "/orders/abc", "/cart", "/no/such/page", "/administrator"]) {
      const page = await get(path);
      expect({ path, status: page.status, body: page.body }).toEqual({ path, status: 200, body: home });
    }
  });

  test("/admin and every path below it is the back office's page", async () => {
    const storefront = (await get("/")).body;
    const admin = await get("/admin");
    expect(admin.status).toBe(200);
    expect(admin.body).not.toBe(storefront);
    expect(admin.body).toContain("Back office");
    expectOnEverything(admin.headers);
    for (const path of ["/admin/", "/admin/orders/abc", "/admin/reports"]) expect((await get(path)).body).toBe(admin.body);
  });

  test("HEAD answers as GET does, without a body", async () => {
    const head = await shop.handle(new Request("http://localhost/products/x", { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await head.text()).toBe("");
  });
});

describe("the assets", () => {
  test("a hashed script is kept for a year, with the CSP and nosniff", async () => {
    const script = scriptOf((await get("/")).body)!;
    expect(script).toMatch(/-[a-z0-9]{8}\.js$/);
    const asset = await get(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toStartWith("text/javascript");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expectOnEverything(asset.headers);
    expect(String(asset.body).length).toBeGreaterThan(1000);
  });

  test("a script is sent gzipped to a client that accepts it, the same bytes once inflated; as it is to one that does not", async () => {
    const script = scriptOf((await get("/")).body)!;
    const plain = await shop.handle(new Request(`http://localhost${script}`));
    const zipped = await shop.handle(new Request(`http://localhost${script}`, { headers: { "accept-encoding": "gzip, deflate, br" } }));
    const refused = await shop.handle(new Request(`http://localhost${script}`, { headers: { "accept-encoding": "gzip;q=0, identity" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toContain("Accept-Encoding");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(refused.headers.get("content-encoding")).toBeNull();
    const original = new Uint8Array(await plain.arrayBuffer());
    // Bun's fetch would inflate it; app.handle hands over the bytes as sent.
    const sent = new Uint8Array(await zipped.arrayBuffer());
    expect(sent.byteLength).toBeLessThan(original.byteLength / 2);
    expect(Bun.gunzipSync(sent)).toEqual(original);
    expect(new Uint8Array(await refused.arrayBuffer())).toEqual(original);
  });

  test("the stylesheet is served as CSS", async () => {
    const href = /<link rel="stylesheet" crossorigin href="([^"]+)"/.exec((await get("/")).body)?.[1];
    const css = await get(href!);
    expect(css.headers.get("content-type")).toStartWith("text/css");
    expect(css.body).toContain("skip-link");
  });

  test("an answer to a request that carries a session is never stored, not even a hashed file (decisions §10)", async () => {
    const script = scriptOf((await get("/")).body)!;
    const signedIn = await get(script, { cookie: `${SESSION_COOKIE}=anything` });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("cache-control")).toBe("no-store");
  });

  test("an unknown file under /assets/ is a 404, not a page", async () => {
    const missing = await get("/assets/storefront/index-00000000.js");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe("no-store");
    expectOnEverything(missing.headers);
  });
});

describe("the API beside them is unchanged", () => {
  test("an unknown path under /api is still the API's JSON 404", async () => {
    for (const path of ["/api/nothing", "/api/products/x/y/z", "/api/admin/nothing"]) {
      const answer = await get(path);
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 404, body: { error: "Not found" } });
      expect(answer.headers.get("content-type")).toContain("application/json");
      expect(answer.headers.get("content-security-policy")).toBeNull();
    }
  });

  test("a known API path asked with another method is still a 405 naming its methods", async () => {
    const answer = await get("/api/cart/checkout");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toContain("POST");
  });

  test("API answers are the API's: JSON, no CSP of the pages", async () => {
    const about = await get("/api");
    expect(about.body.name).toBe("Storefront");
    expect(about.headers.get("content-security-policy")).toBeNull();
  });

  test("a Host of three characters or fewer is routed as any other: the API's answers, never a page (found by an attack)", async () => {
    // Elysia took such a URL's path from its 11th character on (`http://x/api/…` as `/…`).
    const answer = async (host: string, method: string, path: string) => {
      const response = await shop.handle(new Request(`http://${host}${path}`, { method }));
      return { status: response.status, allow: response.headers.get("allow"), type: response.headers.get("content-type"), body: await response.text() };
    };
    for (const [method, path] of [
      ["GET", "/api/locations/abc"],
      ["GET", "/api/products/no-such-sauce"],
      ["PATCH", "/api/products"],
      ["GET", "/api/nothing"],
    ] as const) {
      const expected = await answer("localhost", method, path);
      expect(expected.type).toContain("application/json");
      for (const host of ["x", "ab", "a.b"]) expect({ host, method, path, ...(await answer(host, method, path)) }).toEqual({ host, method, path, ...expected });
    }
  });

  test("a request without a Host a URL can hold (HTTP/1.0 without one, an empty one) is routed by its own path: the API's answers, or a page (found by a review)", async () => {
    const server = shop.listen({ port: 0, reusePort: false }).server!;
    try {
      for (const [head, expected] of [
        ["GET /api/locations/abc HTTP/1.0", { status: 404, body: '{"error":"Not found"}' }],
        ["GET /api/admin/nothing/x HTTP/1.1\r\nHost: ", { status: 404, body: '{"error":"Not found"}' }],
        ["GET /api/health HTTP/1.0", { status: 200, body: '{"status":"ok"}' }],
        ["GET /api/../api/health HTTP/1.0", { status: 200, body: '{"status":"ok"}' }],
        ["GET /checkout HTTP/1.0", { status: 200 }],
        ["POST /api/nothing/api/auth/callback/credentials HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", { status: 404 }],
      ] as const) {
        const socket = connection(server.port!);
        await socket.write(`${head}${head.includes("Content-Length") ? "" : "\r\n\r\n"}`);
        const answer = await socket.answer();
        socket.end();
        expect({ head, status: answer?.status, ...("body" in expected ? { body: answer?.body } : {}) }).toEqual({ head, ...expected });
        expect(answer?.headers["content-type"]).toContain(head.includes(" /api/") ? "application/json" : "text/html");
      }
    } finally {
      await shop.stop(true);
    }
  });

  test("only GET and HEAD reach the pages: a POST elsewhere is a 404", async () => {
    const answer = await call(shop, "POST", "/checkout", { body: {} });
    expect(answer.status).toBe(404);
  });
});

test("the pages and their files are not the API's endpoints: the rate limit does not count them", async () => {
  const limited = withWebApps(createTestApp(undefined, { rateLimit: { max: 2, windowSeconds: 900 } }).app, build, {
    stripe: false,
    sessionCookieName: SESSION_COOKIE,
  });
  const script = scriptOf((await get("/")).body)!;
  const statuses = [];
  for (let i = 0; i < 4; i++) for (const path of ["/", script, "/admin", "/no/such/page"]) statuses.push((await call(limited, "GET", path)).status);
  expect(new Set(statuses)).toEqual(new Set([200]));
  const scans = [];
  for (let i = 0; i < 3; i++) scans.push((await call(limited, "GET", "/api/nope")).status);
  expect(scans).toEqual([404, 404, 429]);
});

test("with Stripe configured, the CSP allows Stripe's hosts and nothing else from outside", async () => {
  const page = await call(withStripe, "GET", "/");
  const csp = page.headers.get("content-security-policy")!;
  expect(csp).toContain("script-src 'self' https://js.stripe.com https://*.js.stripe.com;");
  expect(csp).toContain("frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;");
  expect(csp).toContain("connect-src 'self' https://api.stripe.com;");
  expect(csp).toContain("frame-ancestors 'none'");
  const hosts = [...csp.matchAll(/https:\/\/([^\s;]+)/g)].map((match) => match[1]);
  expect(hosts.every((host) => host!.endsWith("stripe.com"))).toBe(true);
  const without = await get("/");
  expect(without.headers.get("content-security-policy")).toContain("frame-src 'none'");
});

describe("the build cache", () => {
  test("a second start with the same sources reads the build from the cache: same key, same files", async () => {
    const again = await buildWebApps({ sourceDir: join(ROOT, "web"), cacheDir, lockFile: join(ROOT, "package-lock.json") });
    expect(again.fromCache).toBe(true);
    expect(again.key).toBe(build.key);
    expect([...again.assets.keys()].sort()).toEqual([...build.assets.keys()].sort());
    expect(again.storefront.body).toEqual(build.storefront.body);
  }, 20_000);

  test("a changed source is built anew under a new key, and the older build is dropped", async () => {
    const project = mkdtempSync(join(tmpdir(), "web-sources-"));
    const cache = join(project, "cache");
    try {
      cpSync(join(ROOT, "web"), join(project, "web"), { recursive: true });
      cpSync(join(ROOT, "tsconfig.json"), join(project, "tsconfig.json"));
      symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
      const first = await buildWebApps({ sourceDir: join(project, "web"), cacheDir: cache });
      expect(first.fromCache).toBe(false);
      writeFileSync(join(project, "web/shared/app.css"), "body { color: rebeccapurple; }\n", { flag: "a" });
      const second = await buildWebApps({ sourceDir: join(project, "web"), cacheDir: cache });
      expect(second.fromCache).toBe(false);
      expect(second.key).not.toBe(first.key);
      const css = [...second.assets.entries()].find(([path]) => path.endsWith(".css"))!;
      expect(new TextDecoder().decode(css[1].body)).toContain("#639");
      expect(readdirSync(cache)).toEqual([second.key]);
      expect(existsSync(join(cache, first.key))).toBe(false);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 20_000);

  test("a cache that cannot be written only means building at every start", async () => {
    const blocked = join(cacheDir, "a-file");
    writeFileSync(blocked, "not a directory");
    const built = await buildWebApps({ sourceDir: join(ROOT, "web"), cacheDir: join(blocked, "cache") });
    expect(built.fromCache).toBe(false);
    expect(built.storefront.body.byteLength).toBeGreaterThan(100);
  }, 20_000);
});
