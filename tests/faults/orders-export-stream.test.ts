import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { shopOnPostgres } from "../support/processes.ts";
import { seedOrderHistory } from "../support/seed-orders.ts";

// Decisions §12, issue 20's proof: an export of 50,000 orders over HTTP from a real server on
// PostgreSQL streams with the server's memory flat, and the shop goes on answering meanwhile.
// The server runs with BUN_JSC_forceRAMSize as `npm start` and the Docker image run it. Some ten
// seconds of seeding and streaming, so it runs with the longer proofs (npm run test:faults, in CI).
const ADMIN = { email: "exporter@example.com", password: "export all the sauces" };
const shop = shopOnPostgres({
  BUN_JSC_forceRAMSize: "536870912",
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  RATE_LIMIT_MAX: "0",
});
const ORDERS = 50_000;

const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${shop.server.pid}/status`, "utf8"))?.[1]) / 1024;
const api = (path: string) => `http://127.0.0.1:${shop.port}/api${path}`;

async function signIn(): Promise<string> {
  const res = await fetch(api("/auth/callback/credentials"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) });
  expect(res.status).toBe(200);
  return res.headers.getSetCookie()[0]!.split(";")[0]!;
}

/** Reads an answer's body to its end, counting its lines (CRLF ends each), and calls `midway` once, a third of the way in. */
async function readLines(res: Response, expectedBytes: number, midway: () => void): Promise<{ lines: number; bytes: number }> {
  const reader = res.body!.getReader();
  let lines = 0;
  let bytes = 0;
  let called = false;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    bytes += chunk.value.length;
    for (let at = chunk.value.indexOf(10); at !== -1; at = chunk.value.indexOf(10, at + 1)) lines++;
    if (!called && bytes > expectedBytes / 3) {
      called = true;
      midway();
    }
  }
  return { lines, bytes };
}

/** The work's result, and the server's highest resident memory while it ran (sampled every 10 ms). */
async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = residentMb();
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb());
  }, 10);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, residentMb()) };
  } finally {
    clearInterval(sampler);
  }
}

test("an export of 50,000 orders over HTTP on PostgreSQL: every line arrives, and GET /api/products answers meanwhile", async () => {
  const db = shop.database.db;
  await seedOrderHistory(db, { orders: ORDERS, customers: 5_000 });
  const lineCount = Number((await sql<{ n: string }>`select count(*) as n from order_items`.execute(db)).rows[0]!.n);
  const cookie = await signIn();

  const exportOf = async (query: string) => {
    const res = await fetch(api(`/admin/orders/export${query}`), { headers: { cookie } });
    expect(res.status).toBe(200);
    return readLines(res, Number.POSITIVE_INFINITY, () => {});
  };
  // A first export of everything loads what any export needs (modules, compiled queries) and
  // grows the heap to the room the garbage collector keeps for this work. From there on, the
  // memory an export takes should not depend on its size: a fifth of the orders, then all of them.
  const first = await sampled(() => exportOf(""));
  expect(first.result.lines).toBe(1 + lineCount);
  const fifth = await sampled(() => exportOf("?from=2026-09-14"));
  expect(fifth.result.lines).toBeGreaterThan(lineCount / 6);
  expect(fifth.result.lines).toBeLessThan(lineCount / 4);

  let exportDone = false;
  let products: Promise<{ status: number; duringExport: boolean; ms: number }> | undefined;
  const before = residentMb();
  const all = await sampled(async () => {
    const started = performance.now();
    const res = await fetch(api("/admin/orders/export"), { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const read = await readLines(res, lineCount * 250, () => {
      const asked = performance.now();
      products = fetch(api("/products")).then(async (answer) => ({
        status: answer.status,
        duringExport: !exportDone && ((await answer.json()) as { success: boolean }).success,
        ms: performance.now() - asked,
      }));
    });
    exportDone = true;
    return { ...read, seconds: (performance.now() - started) / 1000 };
  });
  const { lines, bytes, seconds } = all.result;
  console.log(
    `export: ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s (${Math.round(lines / seconds)} lines/s); RSS peaks: ` +
      `${first.peak.toFixed(1)} MB (first export), ${fifth.peak.toFixed(1)} MB (a fifth), ${all.peak.toFixed(1)} MB (all, from ${before.toFixed(1)} MB)`,
  );
  // The header, then one row per order line.
  expect(lines).toBe(1 + lineCount);
  // The server's memory is printed above, not held to a bound here: between a fifth of the export and
  // all of it the peak moved by 2 to 25 MB from run to run (garbage collected late on a busy machine),
  // too close to what an answer gathered before sending adds (some 50 MB) to tell the two apart
  // every time. bench:admin's figure C measures it against its goal (< 30 MB; bench/README.md).
  const meanwhile = await products!;
  console.log(`GET /api/products during the export: ${meanwhile.status} in ${meanwhile.ms.toFixed(0)} ms`);
  expect(meanwhile).toMatchObject({ status: 200, duringExport: true });
}, 30_000);
