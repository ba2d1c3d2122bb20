import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../support/http.ts";

// Decisions §10: the docs page works with no internet. A real headless Chromium loads it with every
// host but the shop's own unresolvable, and must render the routes.
const CHROMIUM = "/usr/bin/chromium";
const profile = mkdtempSync(join(tmpdir(), "storefront-chromium-"));
const t = createTestApp();
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });

afterAll(() => {
  server.stop(true);
  rmSync(profile, { recursive: true, force: true });
});

test("the docs page renders every route in a headless Chromium that can reach nothing but the shop", async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const browser = Bun.spawn(
    [
      CHROMIUM,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1`,
      "--virtual-time-budget=15000",
      "--dump-dom",
      `http://127.0.0.1:${server.port}/api/docs`,
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const [dom, code] = await Promise.all([new Response(browser.stdout).text(), browser.exited]);
  expect(code).toBe(0);
  const rendered = new Set([...dom.matchAll(/data-path="([^"]+)"/g)].map((match) => match[1]));
  const documented = Object.keys((await t.call("GET", "/api/openapi.json")).body.paths);
  expect(documented.length).toBeGreaterThan(15);
  expect([...rendered].sort()).toEqual(documented.sort());
}, 60_000);

test("the page's script and styles come from the shop itself", async () => {
  const html = (await t.call("GET", "/api/docs")).body as string;
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
});
