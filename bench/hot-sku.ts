// One product everyone buys, from two instances of the shop on one PostgreSQL: `npm run bench:hot-sku`.
// 400 shoppers on 50 connections, spread over the two servers, each turn adding 1 of the same
// product and checking out (the built-in fake processor, its books in the same database). Then the
// product's stock is cut to about a second's sales and the shoppers keep buying for 4 s: every unit
// must be sold, and no more. The write probe runs just before and after (see support.ts).
// The last line reads `hot-sku: <N> checkouts/s, p99 <M> ms, <O> oversold, <ratio> of the write probe (…)`.
import { existsSync, globSync, rmSync, writeFileSync } from "node:fs";
import { Client } from "pg";
import { address, shopWithShoppers } from "./shoppers.ts";
import { ADMIN_URL, BENCH_DATABASE, BENCH_PORT, againstProbe, cpuMeter, shopperLoad, startServer, writeProbe } from "./support.ts";

const SHOPPERS = 400;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const STOCK = 10_000_000;

const { databaseUrl, runtime, products, shoppers } = await shopWithShoppers(SHOPPERS, STOCK);
await runtime.close();
const product = products[0]!;
const db = new Client({ connectionString: databaseUrl });
await db.connect();

/** What the product's books say: its stock, and the units in orders that hold stock (cancelled ones gave theirs back). */
async function books() {
  const { rows } = await db.query<{ inventory: number; sold: string }>(
    `select p.inventory, (select coalesce(sum(i.quantity), 0) from order_items i join orders o on o.id = i.order_id
       where i.product_id = p.id and o.status <> 'CANCELLED') as sold
     from products p where p.id = $1`,
    [product.id],
  );
  return { inventory: rows[0]!.inventory, sold: Number(rows[0]!.sold) };
}

/**
 * Samples every 100 ms what the database's backends are doing: how many run a statement, and which
 * statements (their first words) wait on a lock, on what.
 */
function watchLocks() {
  const watcher = new Client({ connectionString: ADMIN_URL });
  let samples = 0;
  let active = 0;
  const waiting = new Map<string, number>();
  let on = true;
  const done = (async () => {
    await watcher.connect();
    while (on) {
      const { rows } = await watcher.query<{ state: string; lock: string | null; query: string }>(
        `select state, case when wait_event_type = 'Lock' then wait_event end as lock, left(regexp_replace(query, $2, ' ', 'g'), 40) as query
         from pg_stat_activity where datname = $1 and state = 'active'`,
        [BENCH_DATABASE, "\\s+"],
      );
      samples++;
      active += rows.length;
      for (const row of rows.filter((r) => r.lock)) waiting.set(`${row.query}… (${row.lock})`, (waiting.get(`${row.query}… (${row.lock})`) ?? 0) + 1);
      await Bun.sleep(100);
    }
    await watcher.end();
  })();
  return {
    async stop() {
      on = false;
      await done;
      const n = samples || 1;
      return { active: active / n, waiting: [...waiting].sort((a, b) => b[1] - a[1]).map(([query, count]) => ({ query, mean: count / n })) };
    },
  };
}

/**
 * The most one row takes here: pgbench's clients each updating the same row of a table of its own in
 * the bench's database, every update its own transaction (the lock held through the commit's flush
 * to disk), for 5 s. Null without pgbench (PostgreSQL's binaries) on this machine.
 */
function oneRowCeiling(): number | null {
  const pgbench = ["/usr/bin/pgbench", ...globSync("/usr/lib/postgresql/*/bin/pgbench")].find((path) => existsSync(path));
  if (!pgbench) return null;
  const script = `${process.env.TMPDIR ?? "/tmp"}/storefront-hot-row-${process.pid}.sql`;
  writeFileSync(script, "update bench_hot_row set n = n - 1 where id = 1;\n");
  try {
    const run = Bun.spawnSync([pgbench, "-n", "-c", "20", "-j", "2", "-T", "5", "-f", script, databaseUrl]);
    return Number(/tps = ([\d.]+)/.exec(run.stdout.toString())?.[1]) || null;
  } finally {
    rmSync(script, { force: true });
  }
}

const probeBefore = writeProbe();
const env = { DATABASE_URL: databaseUrl, AUTH_SECRET: "bench-secret-bench-secret-bench-secret-42", MAX_UNPAID_ORDERS: "1000" };
const servers = [await startServer(env, "src/main.ts", "/api/health", BENCH_PORT), await startServer(env, "src/main.ts", "/api/health", BENCH_PORT + 1)];
let probeAfter: number | null = null;
try {
  const load = {
    bases: servers.map((s) => s.base),
    connections: CONNECTIONS,
    cookies: shoppers.map((s) => s.cookie),
    productIds: [product.id],
    address,
    pay: false,
  };
  const before = await books();
  const cpu = await cpuMeter(servers.map((s) => s.pid));
  const locks = watchLocks();
  const result = await shopperLoad({ ...load, seconds: 10, warmupSeconds: 3 });
  const waits = await locks.stop();
  const used = await cpu.stop();
  const after = await books();

  // Sell-out: about a second's sales left, and the shoppers keep buying for 4 s.
  const SELL_OUT = Math.max(20, result.ordersPerSecond);
  await db.query("update products set inventory = $1 where id = $2", [SELL_OUT, product.id]);
  const soldOut = await shopperLoad({ ...load, seconds: 4, warmupSeconds: 0, soldOutIsAnswer: true });
  const end = await books();
  for (const server of servers) server.stop();
  // Gone before the ceiling and the probe are measured, their connections closed.
  await Promise.all(servers.map((server) => server.exited));
  await db.query("create table bench_hot_row (id int primary key, n bigint not null); insert into bench_hot_row values (1, 1000000000)");
  const ceiling = oneRowCeiling();
  probeAfter = writeProbe();

  const sold = after.sold - before.sold;
  const soldAtSellOut = end.sold - after.sold;
  // Oversold: units in live orders beyond the stock there was, or a stock below zero.
  const oversold = Math.max(0, soldAtSellOut - SELL_OUT) + Math.max(0, -end.inventory);
  // Every unit taken from the shelf is in an order, and every unit in an order was taken.
  const booksOff = Math.abs(before.inventory - after.inventory - sold) + Math.abs(SELL_OUT - end.inventory - soldAtSellOut);
  const per = result.all.orders || 1;
  console.log(`\n| step | count | p50 ms | p99 ms |\n|---|---:|---:|---:|`);
  console.log(`| POST /api/cart | ${result.add.count} | ${result.add.p50} | ${result.add.p99} |`);
  console.log(`| POST /api/cart/checkout | ${result.checkout.count} | ${result.checkout.p50} | ${result.checkout.p99} |`);
  console.log(
    `\n2 instances, ${CONNECTIONS} connections, ${SHOPPERS} shoppers, one product; failures: ${result.failures + soldOut.failures} ${JSON.stringify({ ...result.failureSamples, ...soldOut.failureSamples })}`,
  );
  console.log(`stock ${before.inventory} -> ${after.inventory}, ${sold} units in orders meanwhile`);
  console.log(
    `sell-out: ${SELL_OUT} units left, ${soldAtSellOut} of them sold (${soldOut.all.orders} orders in 4 s), ${soldOut.refused} answers "Insufficient inventory", stock at the end ${end.inventory}; shelf and orders disagree by ${booksOff} units`,
  );
  console.log(
    `one row's ceiling here (pgbench, 20 clients updating one row, each update its own transaction): ${ceiling === null ? "no pgbench" : `${Math.round(ceiling)} updates/s`}`,
  );
  console.log(`PostgreSQL backends of the bench's database, mean of 100 ms samples: ${waits.active.toFixed(1)} running a statement; waiting on a lock:`);
  for (const wait of waits.waiting.slice(0, 5)) console.log(`  ${wait.mean.toFixed(2)} ${wait.query}`);
  console.log(
    `CPU per checkout: servers ${(used.serverMs / per).toFixed(2)} ms, PostgreSQL ${(used.databaseMs / per).toFixed(2)} ms, load generator ${(result.loadGeneratorMs / per).toFixed(2)} ms (${per} in ${Math.round(result.seconds + 3)} s)`,
  );
  console.log(
    `hot-sku: ${result.ordersPerSecond} checkouts/s, p99 ${result.checkout.p99} ms, ${oversold} oversold, ${againstProbe(result.ordersPerSecond, probeBefore, probeAfter).text}`,
  );
} finally {
  for (const server of servers) server.stop();
  await db.end();
}
