import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../support/postgres.ts";
import { outcome, processes, waitForStart } from "../support/processes.ts";

const parent = mkdtempSync(join(tmpdir(), "storefront-server-"));
/** Not there yet: the first start makes it. */
const dataDir = join(parent, "data");
const children = processes();
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  await children.stopAll();
  for (const cleanup of cleanups) await cleanup();
  rmSync(parent, { recursive: true, force: true });
});

function startServer(env: Record<string, string>) {
  return waitForStart(children.spawn([process.execPath, "src/main.ts"], { PORT: "0", ...env }));
}

// Making the embedded database (initdb in WebAssembly, every migration, the demo catalog) is the slowest start
// there is (some ten seconds of CPU; minutes on a machine busy with other work): the one test that does it.
test("the real server starts on the embedded default in a new DATA_DIR (made 0700, its generated auth-secret 0600) and serves the seeded catalog over a socket", async () => {
  const started = await startServer({ DATA_DIR: dataDir, DATABASE_URL: "", PUBLIC_URL: "http://localhost:3999" });
  const { port, adapters } = started;
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dataDir, "auth-secret")).mode & 0o777).toBe(0o600);
  // The log names the docs page, and that page answers.
  expect(started).toMatchObject({ url: "http://localhost:3999", docs: "http://localhost:3999/api/docs" });
  expect((await fetch(`http://127.0.0.1:${port}/api/docs`)).status).toBe(200);
  expect(adapters.database).toContain("embedded PGlite");
  expect(adapters.payments).toStartWith("built-in fake processor");
  expect(adapters.webhooks).toBe("none configured (each answers 503)");

  const products = await fetch(`http://127.0.0.1:${port}/api/products?limit=100`);
  expect(products.status).toBe(200);
  const body = (await products.json()) as any;
  expect(body.meta.total).toBeGreaterThanOrEqual(12);
  const slug = body.data[0].slug;

  const one = await fetch(`http://127.0.0.1:${port}/api/products/${slug}`);
  expect(((await one.json()) as any).data.slug).toBe(slug);

  const locations = (await (await fetch(`http://127.0.0.1:${port}/api/locations`)).json()) as any;
  expect(locations.meta.total).toBeGreaterThanOrEqual(8);
  expect(new Set(locations.data.map((l: any) => l.state)).size).toBeGreaterThan(3);

  const health = await fetch(`http://127.0.0.1:${port}/api/health`);
  expect(await health.json()).toEqual({ status: "ok" });
}, 120_000);

test("the same server runs on PostgreSQL with DATABASE_URL, migrating an empty database at start; the log names Stripe and the webhooks that are on", async () => {
  const database = await createTestDatabase({ migrate: false });
  cleanups.push(database.drop);
  const { port, adapters } = await startServer({
    DATABASE_URL: database.url,
    STRIPE_SECRET_KEY: "sk_test_startuplog",
    STRIPE_API_BASE: "http://127.0.0.1:9",
    STRIPE_WEBHOOK_SECRET: "whsec_startuplog",
    EASYPOST_WEBHOOK_SECRET: "easypost-secret",
  });
  expect(adapters.database).toStartWith("PostgreSQL at 127.0.0.1:5432/");
  // The start-up log says which processor takes the money, in which mode, and which webhooks are on.
  expect(adapters.payments).toBe("Stripe (test mode) at 127.0.0.1:9, with Stripe Tax");
  expect(adapters.webhooks).toBe("on for stripe, easypost; the others answer 503");
  expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).toEqual({ status: "ok" });
  const products = (await (await fetch(`http://127.0.0.1:${port}/api/products`)).json()) as any;
  expect(products.meta.total).toBe(0);
}, 30_000);

test("a database that cannot be reached stops the start with exit code 1 and one log line that says why, no stack", async () => {
  const server = children.spawn([process.execPath, "src/main.ts"], { PORT: "0", DATABASE_URL: "postgres://root@127.0.0.1:1/storefront" });
  const { code, output } = await outcome(server);
  expect(code).toBe(1);
  const failure = output.split("\n").find((line) => line.includes("server.start_failed"));
  expect(JSON.parse(failure ?? "{}").error).toContain("ECONNREFUSED 127.0.0.1:1");
  expect(output).not.toContain("    at ");
}, 30_000);
