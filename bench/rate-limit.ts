// The rate limiter's cost: `npm run bench:rate-limit`. GET /api/products/:id on PostgreSQL with the
// limiter off, counting in memory, and counting in Redis (the machine's, database 15), each server
// in turn for three rounds; the table gives each one's median. The limit is set too high to be
// reached, so every request is counted and none refused. The last line reads
// `rate-limit: costs <M> % in memory, <R> % with Redis`.
import { type LoadResult, load, prepareDatabase, printTable, startServer } from "./support.ts";

const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/15";
const ROUNDS = 3;
const variants = {
  "limiter off": { RATE_LIMIT_MAX: "0" },
  "limiter on, counters in memory": { RATE_LIMIT_MAX: "1000000000" },
  "limiter on, counters in Redis": { RATE_LIMIT_MAX: "1000000000", REDIS_URL },
};

const databaseUrl = await prepareDatabase();
const rounds = new Map<string, LoadResult[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, env] of Object.entries(variants)) {
    const server = await startServer({ DATABASE_URL: databaseUrl, ...env });
    try {
      const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
      const url = `${server.base}/api/products/${list.data[0]?.id}`;
      await load("warm-up", url, { seconds: 3 });
      rounds.set(name, [...(rounds.get(name) ?? []), await load(name, url)]);
    } finally {
      server.stop();
    }
  }
}

const median = (results: LoadResult[]) => [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(results.length / 2)]!;
const medians = [...rounds.values()].map(median);
printTable(medians.map((r) => ({ ...r, name: `GET /api/products/:id, ${r.name} (median of ${ROUNDS})` })));
for (const [name, results] of rounds) console.log(`${name}: ${results.map((r) => r.requestsPerSecond).join(", ")} requests/s`);
const off = medians[0]!.requestsPerSecond;
const costs = medians.slice(1).map((r) => (((off - r.requestsPerSecond) / off) * 100).toFixed(1));
for (const [i, r] of medians.slice(1).entries()) console.log(`${r.name}: costs ${costs[i]} % of the throughput without it`);
console.log(`rate-limit: costs ${costs[0]} % in memory, ${costs[1]} % with Redis`);
