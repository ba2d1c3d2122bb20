import { afterAll, expect, test } from "bun:test";
import type { Browser } from "puppeteer-core";
import { launchBrowser, pageOnlyFor } from "../support/browser.ts";
import { createTestApp } from "../support/http.ts";

// Decisions §10: the docs page works with no internet. A real headless Chromium (from npm) loads it
// with every request to another host aborted, and must render every route.
const t = createTestApp();
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });
const origin = `http://127.0.0.1:${server.port}`;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  server.stop(true);
});

test("the docs page renders every route in a headless Chromium that can reach nothing but the shop", async () => {
  browser = await launchBrowser();
  const { page, blocked } = await pageOnlyFor(browser, origin);
  // The page's policy lets it work whole: nothing it needs is refused.
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  await page.goto(`${origin}/api/docs`, { waitUntil: "networkidle0" });
  await page.waitForSelector("[data-path]", { timeout: 30_000 });
  const rendered = new Set(await page.$$eval("[data-path]", (nodes) => nodes.map((node) => node.getAttribute("data-path"))));
  const documented = Object.keys((await t.call("GET", "/api/openapi.json")).body.paths);
  expect(documented.length).toBeGreaterThan(15);
  expect([...rendered].sort()).toEqual(documented.sort());
  expect(blocked).toEqual([]);
  // An operation opened draws its schemas and example (Swagger UI's styled parts) under the policy too.
  await page.click('[data-path="/api/products"] button, [data-path="/api/products"]');
  await page.waitForSelector(".opblock.is-open", { timeout: 10_000 });
  expect(refused).toEqual([]);
}, 60_000);

test("the page's script and styles come from the shop itself", async () => {
  const docs = await t.call("GET", "/api/docs");
  const html = docs.body as string;
  // Its one inline script runs by its hash; nothing else inline does, and no other site frames it.
  const policy = docs.headers.get("content-security-policy") ?? "";
  expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toContain("unsafe");
  const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  expect(sources).toHaveLength(2);
  for (const source of sources) {
    expect(source).toStartWith("/api/docs/assets/");
    const asset = await t.app.handle(new Request(`http://localhost${source}`));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  }
  // Only the two files are served: not the rest of the package, nor what every object inherits.
  for (const name of ["index.html", "__proto__", "constructor", "toString"]) {
    const other = await t.app.handle(new Request(`http://localhost${sources[0]!.replace(/[^/]+$/, name)}`));
    expect({ name, status: other.status }).toEqual({ name, status: 404 });
  }
  // Public files, but an answer to a request with a session is never stored (decisions §10).
  const signedIn = await t.app.handle(new Request(`http://localhost${sources[0]}`, { headers: { authorization: "Bearer anything" } }));
  expect(signedIn.headers.get("cache-control")).toBe("no-store");
}, 30_000);
