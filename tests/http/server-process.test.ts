import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const dataDir = mkdtempSync(join(tmpdir(), "storefront-server-"));
let server: Subprocess<"ignore", "pipe", "pipe"> | undefined;

afterAll(() => {
  server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Reads the server's JSON log until it says where it listens. */
async function waitForStart(process: Subprocess<"ignore", "pipe", "pipe">): Promise<{ port: number; adapters: Record<string, string> }> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of process.stdout) {
    buffered += decoder.decode(chunk);
    for (const line of buffered.split("\n")) {
      if (!line.startsWith("{")) continue;
      const entry = JSON.parse(line);
      if (entry.event === "server.started") return entry;
    }
  }
  throw new Error(`server exited before it started: ${await new Response(process.stderr).text()}`);
}

test("the real server starts on the embedded default and serves the seeded catalog over a socket", async () => {
  server = Bun.spawn([process.execPath, "src/main.ts"], {
    env: { ...process.env, PORT: "0", DATA_DIR: dataDir, DATABASE_URL: "", NODE_ENV: "development" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const { port, adapters } = await waitForStart(server);
  expect(adapters.database).toContain("embedded PGlite");

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
}, 30_000);
