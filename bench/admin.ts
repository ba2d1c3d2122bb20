// The back office on a shop with a year of orders: `npm run bench:admin` (BENCH_ORDERS, default
// 200,000). On PostgreSQL, seeded by `db:seed --orders N`; the server is loaded from other processes.
// BENCH_SEEDED=1 reuses the database an earlier run seeded (to measure again without seeding again).
// The last line reads `admin: list p99 <A> ms, export <B> rows/s, rss +<C> MB, others p99 x<D>, report p99 <E> ms`.
import { readFileSync } from "node:fs";
import { benchDatabaseUrl, load, prepareDatabase, printTable, startServer } from "./support.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200_000);
const ADMIN = { email: "bench-admin@example.com", password: "a long bench password" };

const reuse = process.env.BENCH_SEEDED === "1";
const databaseUrl = reuse ? benchDatabaseUrl() : await prepareDatabase();
const cli = (...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, "src/cli/main.ts", ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" } });
  if (run.exitCode !== 0) throw new Error(`cli ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
};

if (!reuse) {
  const started = performance.now();
  cli("db:seed", "--orders", String(ORDERS));
  const seedSeconds = (performance.now() - started) / 1000;
  console.log(`seeded ${ORDERS.toLocaleString("en-US")} orders in ${seedSeconds.toFixed(1)} s`);
  cli("user:create", "--email", ADMIN.email, "--password", ADMIN.password, "--role", "ADMIN");
}

const server = await startServer({ DATABASE_URL: databaseUrl });
const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1]) / 1024;
try {
  const signIn = await fetch(`${server.base}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  });
  const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
  const headers = { cookie };
  const latest = (await (await fetch(`${server.base}/api/admin/orders?limit=1`, { headers })).json()) as {
    data: Array<{ orderNumber: string; customer: { id: string; email: string } }>;
  };
  const anOrder = latest.data[0]!;
  const customer = anOrder.customer;

  // A: the first page of the queue, for each filter and for q, as a few staff at once ask for it.
  const today = new Date();
  const monthAgo = new Date(today.getTime() - 30 * 86_400_000).toISOString().slice(0, 10);
  const filters: Record<string, string> = {
    "no filter": "",
    "status=SHIPPED": "status=SHIPPED",
    "status=PENDING,CONFIRMED": "status=PENDING,CONFIRMED",
    "paymentStatus=REFUNDED": "paymentStatus=REFUNDED",
    "from (30 days)": `from=${monthAgo}`,
    "from+to (a week)": `from=${monthAgo}&to=${new Date(today.getTime() - 23 * 86_400_000).toISOString().slice(0, 10)}`,
    customerId: `customerId=${customer.id}`,
    "q (e-mail part)": `q=${encodeURIComponent(customer.email.split("@")[0]!.slice(0, 6))}`,
    // What staff type: the end of an order number read out by a customer.
    "q (order number part)": `q=${anOrder.orderNumber.slice(-6)}`,
    "status+paymentStatus+from": `status=CONFIRMED&paymentStatus=PAID&from=${monthAgo}`,
  };
  // Each after a second of the same requests unmeasured: a database connection's first statement over
  // rows it has not read yet is slow while its process maps those pages of shared buffers (a count over
  // 13,000 orders: 127-164 ms on a new connection, 30 ms after; docs/operations.md), which a shop
  // running for a while has paid long before. The first seconds are the warm-up's, not the filter's.
  const lists = [];
  for (const [name, query] of Object.entries(filters)) {
    lists.push(
      await load(`GET /api/admin/orders?${name}`, `${server.base}/api/admin/orders?${query}`, { headers, connections: 2, seconds: 4, warmupSeconds: 1 }),
    );
  }
  printTable(lists);
  const listP99 = Math.max(...lists.map((l) => l.p99));

  // B: the full export, alone. C and D: the same export again, from a server that has exported once
  // (its code compiled and its buffers grown: the first export's growth is printed too), while the
  // catalog is loaded meanwhile; its p99 against idle.
  const fullExport = async () => {
    const before = residentMb();
    let peak = before;
    const sampling = setInterval(() => (peak = Math.max(peak, residentMb())), 100);
    const began = performance.now();
    const res = await fetch(`${server.base}/api/admin/orders/export`, { headers });
    // Line ends counted in the bytes: the reader stands for a download, and must not take the CPU the server needs.
    let lines = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    clearInterval(sampling);
    const seconds = (performance.now() - began) / 1000;
    return { rows: lines - 1, seconds, rowsPerSecond: Math.round((lines - 1) / seconds), before, peak, growth: peak - before };
  };
  const report = (name: string, e: Awaited<ReturnType<typeof fullExport>>) =>
    console.log(
      `${name}: ${e.rows.toLocaleString("en-US")} rows (order items) in ${e.seconds.toFixed(1)} s, ${e.rowsPerSecond} rows/s; RSS ${e.before.toFixed(0)} → peak ${e.peak.toFixed(0)} MB (+${e.growth.toFixed(1)})`,
    );
  const first = await fullExport();
  report("first export, alone", first);
  const productsUrl = `${server.base}/api/products`;
  const idle = await load("GET /api/products, idle", productsUrl, { connections: 10, seconds: 5 });
  const exporting = fullExport();
  const busy = await load("GET /api/products, during the export", productsUrl, { connections: 10, seconds: 5 });
  const second = await exporting;
  printTable([idle, busy]);
  report("second export, the catalog loaded meanwhile", second);

  // E: a 365-day daily sales report, after two seconds of it unmeasured (as the lists above: some 40
  // reports are measured, so one on a connection new to the order lines would be the p99 alone).
  // The first report sums the year's settled days from their orders and keeps them; its time is
  // printed apart, as a shop pays it once (again after db:seed), and the load measures the reports after.
  const from = new Date(today.getTime() - 364 * 86_400_000).toISOString().slice(0, 10);
  const reportUrl = `${server.base}/api/admin/reports/sales?from=${from}&to=${today.toISOString().slice(0, 10)}&interval=day`;
  const firstReport = performance.now();
  const firstStatus = (await fetch(reportUrl, { headers })).status;
  const kept = reuse ? "reads what an earlier run kept" : "sums the settled days and keeps them";
  console.log(`first report (${kept}): ${firstStatus}, ${(performance.now() - firstReport).toFixed(0)} ms`);
  const salesReport = await load("GET /api/admin/reports/sales (365 days, daily)", reportUrl, {
    headers,
    connections: 2,
    seconds: 6,
    warmupSeconds: 2,
  });
  printTable([salesReport]);

  console.log(
    `admin: list p99 ${listP99} ms, export ${first.rowsPerSecond} rows/s, rss +${second.growth.toFixed(1)} MB, others p99 x${(busy.p99 / idle.p99).toFixed(2)}, report p99 ${salesReport.p99} ms`,
  );
} finally {
  server.stop();
}
