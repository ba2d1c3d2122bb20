// The shop under steady mixed load for a while: `npm run soak` (10 minutes; SOAK_MINUTES to change).
// The real server on PostgreSQL with the built-in fake processor and 400 signed-in shoppers, loaded
// from bench/soak-load.mjs: 70 % browsing, 20 % the cart, 10 % adding, checking out and paying. Its
// capacity is measured first (50 actions at once, back to back), then it runs at half of that, on
// schedule, for the whole time; its resident memory is sampled every second.
// Goals, over the last 5 minutes (the last half of a shorter soak): RSS grows less than 5 MB, the
// p99 of every minute stays within 20 % of the first minute's, and no request fails.
// The last line reads `soak: <M> min at <R> actions/s (half of <C>): RSS +<X> MB …, p99 …, <E> errors; goals met|not met`.
import { readFileSync } from "node:fs";
import { address, shopWithShoppers } from "./shoppers.ts";
import { startServer, withConfigFile } from "./support.ts";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
// The last minutes are compared with the first: with fewer than two there is nothing to compare.
if (!Number.isInteger(MINUTES) || MINUTES < 2) {
  console.error(`SOAK_MINUTES must be a whole number of minutes, 2 or more (got ${process.env.SOAK_MINUTES})`);
  process.exit(1);
}
const WINDOW = Math.min(5, MINUTES / 2);

interface Soaked {
  actionsPerSecond: number;
  actions: number;
  skipped: number;
  kinds: Record<string, number>;
  minutes: { requests: number; p50: number | null; p99: number | null; errors: number }[];
  errorSamples: Record<string, string>;
}

const { databaseUrl, runtime, products, shoppers } = await shopWithShoppers(400, 10_000_000);
await runtime.close();
const server = await startServer({ DATABASE_URL: databaseUrl, AUTH_SECRET: "bench-secret-bench-secret-bench-secret-42", MAX_UNPAID_ORDERS: "1000" });

async function soakLoad(config: { seconds: number; rate: number | null; workers?: number }): Promise<Soaked> {
  const settings = { base: server.base, cookies: shoppers.map((s) => s.cookie), productIds: products.map((p) => p.id), address, ...config };
  return withConfigFile("soak", settings, async (file) => {
    const child = Bun.spawn(["node", "bench/soak-load.mjs", file], { stdout: "pipe", stderr: "inherit" });
    return JSON.parse(await new Response(child.stdout).text());
  });
}

const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

try {
  await soakLoad({ seconds: 5, rate: null, workers: 50 });
  const capacity = (await soakLoad({ seconds: 15, rate: null, workers: 50 })).actionsPerSecond;
  const rate = Math.round(capacity / 2);
  console.log(`capacity: ${capacity} actions/s (50 at once); soaking ${MINUTES} min at ${rate} actions/s`);

  const rss: { at: number; mb: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => rss.push({ at: (Date.now() - started) / 1000, mb: residentMb() }), 1000);
  const soaked = await soakLoad({ seconds: MINUTES * 60, rate });
  clearInterval(sampler);

  /** The mean RSS over [from, to) seconds of the soak: a mean over many samples, so the garbage collector's sawtooth does not count as growth. */
  const rssBetween = (from: number, to: number) => {
    const inside = rss.filter((s) => s.at >= from && s.at < to);
    return inside.reduce((sum, s) => sum + s.mb, 0) / (inside.length || 1);
  };
  // A last, partial minute of answers to requests started before the end is left out.
  const full = soaked.minutes.slice(0, MINUTES);
  console.log("\n| minute | requests | p50 ms | p99 ms | errors | RSS MB (mean) |\n|---:|---:|---:|---:|---:|---:|");
  for (const [i, m] of full.entries()) {
    console.log(`| ${i + 1} | ${m.requests} | ${m.p50} | ${m.p99} | ${m.errors} | ${rssBetween(i * 60, (i + 1) * 60).toFixed(1)} |`);
  }
  console.log(`\nactions: ${JSON.stringify(soaked.kinds)}, ${soaked.skipped} skipped (no idle shopper); errors: ${JSON.stringify(soaked.errorSamples)}`);

  // The window: the last WINDOW minutes of the soak; RSS growth is the mean of its last 30 s over the mean of its first 30 s.
  const from = Math.ceil(MINUTES - WINDOW);
  const windowMinutes = full.slice(from);
  const firstP99 = full[0]?.p99 ?? 0;
  const worstP99 = Math.max(...windowMinutes.map((m) => m.p99 ?? 0));
  const growth = rssBetween(MINUTES * 60 - 30, MINUTES * 60) - rssBetween(from * 60, from * 60 + 30);
  const errors = windowMinutes.reduce((sum, m) => sum + m.errors, 0);
  const allErrors = soaked.minutes.reduce((sum, m) => sum + m.errors, 0);
  // A load generator that stopped early leaves no minute to judge: that is no goal met.
  const met = windowMinutes.length > 0 && growth < 5 && worstP99 <= firstP99 * 1.2 && errors === 0;
  console.log(
    `soak: ${MINUTES} min at ${rate} actions/s (half of ${capacity}): RSS ${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB over the last ${WINDOW} min, p99 ${firstP99} ms in the first minute and at most ${worstP99} ms (${(worstP99 / firstP99).toFixed(2)}×) in the last ${WINDOW}, ${errors} errors (${allErrors} in all); goals ${met ? "met" : "not met"}`,
  );
} finally {
  server.stop();
}
