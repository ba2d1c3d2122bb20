import { join } from "node:path";
import { demoCatalog } from "../../src/application/catalog/demo-catalog.ts";
import { type WebBuild, buildWebApps, withWebApps } from "../../src/adapters/http/web.ts";
import { createMemoryDeps, createMemoryFakeProcessor } from "../../src/adapters/memory/deps.ts";
import { SESSION_COOKIE, type TestAppOptions, createTestApp } from "./http.ts";

const ROOT = join(import.meta.dir, "../..");
let build: Promise<WebBuild> | undefined;

/** The web apps as `npm start` builds them (the same cache), once per test process. */
export function webBuild(): Promise<WebBuild> {
  build ??= buildWebApps({
    sourceDir: join(ROOT, "web"),
    cacheDir: join(ROOT, "node_modules", ".cache", "storefront-web"),
    lockFile: join(ROOT, "package-lock.json"),
  });
  return build;
}

/**
 * The whole shop on a real HTTP server on a free loopback port, as the shop serves it: the API
 * (over in-memory fakes, the demo catalog in it, the fake processor taking the payments with its
 * challenge page on this origin) and the two web apps. For a browser to drive; stop() in afterAll.
 */
export async function serveShop(options: Omit<TestAppOptions, "publicUrl"> & { stripe?: boolean } = {}) {
  let handle: (request: Request) => Promise<Response> = async () => new Response("Starting", { status: 503 });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => handle(request) });
  const origin = `http://127.0.0.1:${server.port}`;
  const deps = createMemoryDeps();
  const processor = createMemoryFakeProcessor(origin);
  Object.assign(deps, { payments: processor, tax: processor, processor });
  const t = createTestApp(deps, { ...options, publicUrl: origin });
  await t.useCases.seedDemoCatalogIfEmpty(demoCatalog);
  const app = withWebApps(t.app, await webBuild(), { stripe: options.stripe ?? false, sessionCookieName: SESSION_COOKIE });
  handle = (request) => app.handle(request);
  return { origin, ...t, stop: () => server.stop(true) };
}
