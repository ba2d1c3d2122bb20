// What tracing costs a request: `npm run bench:tracing` (or `bun bench/tracing.ts`).
//
// The same catalog reads against a shop without OTEL_EXPORTER_OTLP_ENDPOINT and one sending every
// span to a collector stand-in that reads and drops them, in turns. The figure is the server's CPU
// time per request (from /proc, user + system), which other work on a shared machine moves far less
// than requests per second; those are printed beside it.
import { BENCH_PORT, prepareDatabase, startServer } from "./support.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

let exports = 0;
const collector = Bun.serve({
  port: 0,
  async fetch(request) {
    await request.arrayBuffer();
    exports++;
    return Response.json({});
  },
});

/** The process's CPU time so far, in ms (utime + stime, in clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function rssMb(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Waits (up to 20 s) for a stopped server to be gone, so the next one can have its port. */
async function exited(pid: number): Promise<void> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(50)) {
    const stat = await Bun.file(`/proc/${pid}/stat`)
      .text()
      .catch(() => "");
    if (!stat || stat.split(") ")[1]?.startsWith("Z")) return;
  }
  throw new Error(`server ${pid} did not stop`);
}

/** autocannon for a fixed number of requests, 50 connections. */
async function hammer(url: string, amount: number) {
  const child = Bun.spawn(["node", "node_modules/autocannon/autocannon.js", "-c", "50", "-a", String(amount), "--json", url], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const report = JSON.parse(await new Response(child.stdout).text());
  return { requestsPerSecond: Math.round(report.requests.average), p99: report.latency.p99, failed: report.errors + report.timeouts + report.non2xx };
}

const databaseUrl = await prepareDatabase();
const variants = {
  "tracing off": {},
  "tracing on (every span sent)": { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` },
} as Record<string, Record<string, string>>;
const rows: string[] = [];
/** Server CPU µs a request, by variant and scenario, one value a round. */
const perRequestOf: Record<string, number[]> = {};
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, env] of Object.entries(variants)) {
      const server = await startServer({ DATABASE_URL: databaseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: "", ...env }, "src/main.ts", "/api/health", BENCH_PORT);
      try {
        const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
        for (const [scenario, path] of [
          ["GET /api/products/:id", `/api/products/${list.data[0]?.id}`],
          ["GET /api/products?search=pepper&sort=price_asc", "/api/products?search=pepper&sort=price_asc"],
        ] as const) {
          await hammer(`${server.base}${path}`, REQUESTS / 4);
          const before = await cpuMs(server.pid);
          const result = await hammer(`${server.base}${path}`, REQUESTS);
          const perRequest = (((await cpuMs(server.pid)) - before) * 1000) / REQUESTS;
          (perRequestOf[`${name}|${scenario}`] ??= []).push(perRequest);
          rows.push(
            `| ${scenario} | ${name} | ${round} | ${Math.round(perRequest)} | ${result.requestsPerSecond} | ${result.p99} | ${result.failed} | ${await rssMb(server.pid)} |`,
          );
        }
      } finally {
        server.stop();
        await exited(server.pid);
      }
    }
  }
} finally {
  collector.stop(true);
}
console.log(`${REQUESTS} requests a scenario after ${REQUESTS / 4} to warm up, 50 connections; ${exports} exports received`);
console.log("| scenario | shop | round | server CPU µs/request | requests/s | p99 ms | failed | RSS MB |");
console.log("|---|---|---:|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);

const median = (values: number[] = []) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2);
};
const cost = (variant: string) =>
  `${median(perRequestOf[`${variant}|GET /api/products/:id`])} / ${median(perRequestOf[`${variant}|GET /api/products?search=pepper&sort=price_asc`])} µs`;
console.log(
  `tracing: server CPU a request (a product / a search, median of ${ROUNDS} rounds): off ${cost("tracing off")}, on ${cost("tracing on (every span sent)")}`,
);
