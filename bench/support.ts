import { existsSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "pg";
import { demoCatalog } from "../src/application/catalog/demo-catalog.ts";
import { makeUseCases } from "../src/application/use-cases.ts";
import { migrateToLatest } from "../src/adapters/db/migrate.ts";
import { buildRuntime } from "../src/compose.ts";
import { commonPasswords } from "../src/adapters/crypto/common-passwords.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/adapters/log.ts";

export const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/test";
/** BENCH_DATABASE: another name, so two benches on one machine do not drop each other's database. */
export const BENCH_DATABASE = process.env.BENCH_DATABASE ?? "storefront_bench";
export const BENCH_PORT = Number(process.env.BENCH_PORT ?? 3900);

export function benchDatabaseUrl(): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${BENCH_DATABASE}`;
  return url.toString();
}

/** A fresh database with the schema and the demo catalog. */
export async function prepareDatabase(): Promise<string> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${BENCH_DATABASE} with (force)`);
  await admin.query(`create database ${BENCH_DATABASE}`);
  await admin.end();
  const config = loadConfig({ DATABASE_URL: benchDatabaseUrl() }, commonPasswords);
  const runtime = buildRuntime(config, silentLogger);
  await migrateToLatest(runtime.db);
  await makeUseCases(runtime.deps, { publicUrl: config.publicUrl }).seedDemoCatalog(demoCatalog);
  await runtime.close();
  return benchDatabaseUrl();
}

/** Starts the real server in its own process, logging as in production (to /dev/null here). */
export async function startServer(env: Record<string, string>, entry = "src/main.ts", ready = "/api/health", port = BENCH_PORT) {
  // A server left on the port would answer the readiness poll for ours, which cannot listen: every
  // figure would then be that other server's. The bench before may still be letting its server
  // finish (a drain of a few seconds); one still there after 15 s was left by a run cut short.
  const free = () => {
    try {
      Bun.serve({ port, fetch: () => new Response(null) }).stop(true);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === "EADDRINUSE") return false;
      throw error;
    }
  };
  for (let waited = 0; !free(); waited += 100) {
    if (waited >= 15_000) throw new Error(`port ${port} is still taken after 15 s: a server of an earlier run? (ss -tlnp | grep :${port})`);
    await Bun.sleep(100);
  }
  const server = Bun.spawn([process.execPath, ...(process.env.BENCH_BUN_FLAGS ? process.env.BENCH_BUN_FLAGS.split(" ") : []), entry], {
    // The heap setting `npm start` and the Dockerfile run with (see the Dockerfile).
    // No rate limit unless a bench asks for one: the others measure what the limit would cut short.
    env: {
      ...process.env,
      PORT: String(port),
      NODE_ENV: "development",
      BUN_JSC_forceRAMSize: "536870912",
      RATE_LIMIT_MAX: "0",
      PASSWORD_RATE_LIMIT_MAX: "0",
      ...env,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  // Up to 30 s: a machine busy with other work can take that long to load the app.
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${base}${ready}`).catch(() => null))?.status) return { base, pid: server.pid, stop: () => server.kill(), exited: server.exited };
    await Bun.sleep(100);
  }
  server.kill();
  throw new Error("server did not start");
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Requests sent first, at the same concurrency, and left out of the figures (autocannon's --warmup). */
  warmupSeconds?: number;
}

/** Runs autocannon as a separate Node.js process against one URL. */
export async function load(name: string, url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const connections = String(options.connections ?? 50);
  const args = ["-c", connections, "-d", String(options.seconds ?? 10), "--json"];
  if (options.warmupSeconds) args.push("--warmup", "[", "-c", connections, "-d", String(options.warmupSeconds), "]");
  if (options.method) args.push("-m", options.method);
  for (const [key, value] of Object.entries(options.headers ?? {})) args.push("-H", `${key}=${value}`);
  if (options.body) args.push("-b", options.body);
  return summarize(name, ["node", "node_modules/autocannon/autocannon.js", ...args, url]);
}

export interface Variant {
  headers: Record<string, string>;
  body?: string;
}

/** Like load, but each request takes the next headers and body from `variants`, round robin. */
export async function loadRotating(name: string, url: string, variants: Variant[], options: LoadOptions = {}): Promise<LoadResult> {
  const config = { url, method: options.method ?? "GET", connections: options.connections ?? 50, seconds: options.seconds ?? 10, variants };
  return withConfigFile("bench", config, (file) => summarize(name, ["node", "bench/rotating-load.mjs", file]));
}

/** Writes a load generator's settings to a file it is given, and removes the file once `run` is done. */
export async function withConfigFile<T>(name: string, config: unknown, run: (file: string) => Promise<T>): Promise<T> {
  const file = `${process.env.TMPDIR ?? "/tmp"}/storefront-${name}-${process.pid}.json`;
  await Bun.write(file, JSON.stringify(config));
  try {
    return await run(file);
  } finally {
    rmSync(file, { force: true });
  }
}

async function summarize(name: string, command: string[]): Promise<LoadResult> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "ignore" });
  // With a warm-up, autocannon prints the warm-up's report first: the run's is the last line.
  const report = JSON.parse((await new Response(child.stdout).text()).trim().split("\n").at(-1)!);
  return {
    name,
    requestsPerSecond: Math.round(report.requests.average),
    p50: report.latency.p50,
    p99: report.latency.p99,
    errors: report.errors + report.timeouts,
    non2xx: report.non2xx,
  };
}

export function printTable(results: LoadResult[]) {
  console.log("| scenario | requests/s | p50 ms | p99 ms | errors | non-2xx |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(`| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
  }
}

/** Samples a process's resident memory (Linux /proc) until stopped; returns the peak in MB. */
export function watchMemory(pid: number) {
  let peakKb = 0;
  const samples: number[] = [];
  const timer = setInterval(async () => {
    const status = await Bun.file(`/proc/${pid}/status`)
      .text()
      .catch(() => "");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peakKb = Math.max(peakKb, kb);
    if (process.env.BENCH_RSS_TRACE) samples.push(Math.round(kb / 1024));
  }, 250);
  return {
    stop(): number {
      clearInterval(timer);
      if (samples.length) console.log(`RSS MB every 250 ms: ${samples.join(" ")}`);
      return Math.round(peakKb / 1024);
    },
  };
}

/**
 * Plays shoppers against the server(s) with wrk (bench/shopper-load.lua, one connection a thread),
 * the write probe's own load generator, and returns their summary. BENCH_LOAD_GENERATOR=node plays
 * them with bench/shopper-load.mjs instead: the load generator of bench/README's figures up to
 * "Where a paid order's time goes" (2026-11-26, night), which used about a sixth of a core more.
 */
export async function shopperLoad(config: ShopperLoadConfig): Promise<ShopperLoadResult> {
  if (process.env.BENCH_LOAD_GENERATOR === "node") return nodeShopperLoad(config);
  if (!Bun.which("wrk")) throw new Error("the shoppers' load needs wrk (apt-get install wrk, as the write probe does), or BENCH_LOAD_GENERATOR=node");
  const bases = config.bases ?? [config.base!];
  const lines = [
    `connections ${config.connections}`,
    `warmup ${config.warmupSeconds}`,
    `seconds ${config.seconds}`,
    `pay ${config.pay ? 1 : 0}`,
    `soldOutIsAnswer ${config.soldOutIsAnswer ? 1 : 0}`,
    `address ${JSON.stringify(config.address)}`,
    ...bases.map((base) => `base ${base}`),
    ...config.cookies.map((cookie) => `cookie ${cookie}`),
    ...config.productIds.map((id) => `product ${id}`),
  ];
  const file = `${process.env.TMPDIR ?? "/tmp"}/storefront-shoppers-${process.pid}.txt`;
  await Bun.write(file, `${lines.join("\n")}\n`);
  try {
    // Two seconds past the window: each connection finishes the cycle it is in, then waits (see the script).
    const seconds = config.warmupSeconds + config.seconds + 2;
    const n = String(config.connections);
    const child = Bun.spawn(["wrk", "-t", n, "-c", n, "-d", `${seconds}s`, "--timeout", "10s", "-s", "bench/shopper-load.lua", bases[0]!], {
      env: { ...process.env, SHOPPER_SETTINGS: file },
      stdout: "pipe",
      stderr: "inherit",
    });
    const output = await new Response(child.stdout).text();
    const last = output.trim().split("\n").at(-1) ?? "";
    if ((await child.exited) !== 0 || !last.startsWith("{")) throw new Error(`wrk gave no summary (exit ${child.exitCode}): ${output.trim()}`);
    const summary = JSON.parse(last);
    return { ...summary, loadGeneratorMs: Number(child.resourceUsage()?.cpuTime.total ?? 0) / 1000 } as ShopperLoadResult;
  } finally {
    rmSync(file, { force: true });
  }
}

export interface ShopperLoadConfig {
  base?: string;
  /** Several instances: connection i talks to bases[i % bases.length]. */
  bases?: string[];
  connections: number;
  seconds: number;
  warmupSeconds: number;
  cookies: string[];
  productIds: string[];
  address: Record<string, string>;
  pay: boolean;
  /** "Insufficient inventory" (400) is a refusal, not a failure. */
  soldOutIsAnswer?: boolean;
}

export interface ShopperLoadResult {
  seconds: number;
  ordersPerSecond: number;
  paidPerSecond: number;
  add: { count: number; p50: number; p99: number };
  checkout: { count: number; p50: number; p99: number };
  payment: { count: number; p50: number | null; p99: number | null };
  failures: number;
  /** "Insufficient inventory" answers, when the config says they are answers (`soldOutIsAnswer`). */
  refused: number;
  failureSamples: Record<string, string>;
  /** Over the whole run, warm-up included. */
  all: { orders: number; paid: number };
  /** CPU the load generator used, in ms. */
  loadGeneratorMs: number;
}

/** bench/shopper-load.mjs in its own Node.js process. */
async function nodeShopperLoad(config: ShopperLoadConfig): Promise<ShopperLoadResult> {
  const { child, summary } = await withConfigFile("shoppers", config, async (file) => {
    const child = Bun.spawn(["node", "bench/shopper-load.mjs", file], { stdout: "pipe", stderr: "inherit" });
    const summary = JSON.parse(await new Response(child.stdout).text());
    await child.exited;
    return { child, summary };
  });
  return { ...summary, loadGeneratorMs: Number(child.resourceUsage()?.cpuTime.total ?? 0) / 1000 };
}

/** CPU time (user + system, in ms) process `pid` has used so far, from /proc; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (getconf CLK_TCK: 100)
  } catch {
    return 0;
  }
}

/** The PostgreSQL backends serving `database` right now (their processes are on this machine when PostgreSQL is). */
async function backendsOf(database: string): Promise<number[]> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [database]);
    return rows.map((r) => r.pid);
  } finally {
    await admin.end();
  }
}

/**
 * CPU used between start and stop by the server processes and by the PostgreSQL backends of the
 * bench's database (a backend that connects meanwhile counts from zero). The database's share is
 * 0 when PostgreSQL runs on another machine.
 */
export async function cpuMeter(serverPids: number[], database = BENCH_DATABASE) {
  const serverAtStart = serverPids.map(cpuMs);
  const backendsAtStart = new Map((await backendsOf(database)).map((pid) => [pid, cpuMs(pid)]));
  return {
    async stop(): Promise<{ serverMs: number; databaseMs: number }> {
      const serverMs = serverPids.reduce((sum, pid, i) => sum + cpuMs(pid) - serverAtStart[i]!, 0);
      const databaseMs = (await backendsOf(database)).reduce((sum, pid) => sum + cpuMs(pid) - (backendsAtStart.get(pid) ?? 0), 0);
      return { serverMs, databaseMs };
    },
  };
}

/** The write probe of the machine (`../shared/bench/write-probe.sh`, or BENCH_PROBE_SCRIPT); BENCH_PROBE=0 skips it. */
const PROBE_SCRIPT = process.env.BENCH_PROBE_SCRIPT ?? resolve(import.meta.dir, "../../shared/bench/write-probe.sh");

/**
 * The write probe's transactions/s right now (BEGIN, UPDATE, INSERT, COMMIT over a pool of 10:
 * the machine's speed at short write transactions, ~17 s), or null when it is skipped or absent.
 */
export function writeProbe(): number | null {
  if (process.env.BENCH_PROBE === "0" || !existsSync(PROBE_SCRIPT)) return null;
  const bin = resolve(import.meta.dir, "../node_modules/.bin");
  const run = Bun.spawnSync(["bash", PROBE_SCRIPT], { cwd: resolve(import.meta.dir, ".."), env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  const txPerSecond = Number(run.stdout.toString().trim());
  if (Number.isFinite(txPerSecond) && txPerSecond > 0) return txPerSecond;
  console.error(`the write probe gave no figure (exit ${run.exitCode}): ${run.stdout.toString().trim()} ${run.stderr.toString().trim()}`);
  return null;
}

/**
 * A write bench's figure read against the probe run just before and just after it: the figure
 * divided by the mean of the two, and the text that says so.
 */
export function againstProbe(figure: number, before: number | null, after: number | null): { ratio: number | null; text: string } {
  if (before === null || after === null) return { ratio: null, text: "no write probe" };
  const ratio = figure / ((before + after) / 2);
  return { ratio, text: `${ratio.toFixed(3)} of the write probe (${before} / ${after} tx/s before / after)` };
}
