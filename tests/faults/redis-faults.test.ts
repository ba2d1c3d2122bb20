import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually } from "../support/eventually.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type Server, processes, startedAndFollowed } from "../support/processes.ts";
import { type TestRedis, startRedisServer } from "../support/redis.ts";
import { type Answer, aClient } from "../support/shop-load.ts";

// Decisions §14: Redis down or frozen. A shop counting its rate limits in a redis-server of this
// test's own, behind a trusted proxy (the client is the X-Forwarded-For address), under a steady
// load of catalog reads from ever new addresses, while Redis is frozen (SIGSTOP: it keeps its
// connections and answers nothing, the worst case) and thawed, then killed (SIGKILL) and started
// again. docs/http.md, "Where the counts live": no request fails, none waits on Redis more than
// 150 ms, the counters carry on in the instance's memory (`ratelimit.degraded` once), and once a
// background retry finds Redis again (`ratelimit.restored`) they are in Redis again.
const LIMIT = 5;
/** The longest any request may take in the shop, Redis frozen or not. */
const BOUND_MS = 300;
/** The same seen from the client, on a machine busy enough to keep the test process waiting. */
const CLIENT_BOUND_MS = 1_000;
const children = processes();
let database: TestDatabase;
let redis: TestRedis;
let shop: { server: Server; base: string; log: Record<string, unknown>[]; stderr: () => string };

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), startRedisServer()]);
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    TRUST_PROXY: "true",
    RATE_LIMIT_MAX: String(LIMIT),
  });
  const { port, log, stderr } = await startedAndFollowed(server);
  shop = { server, base: `http://127.0.0.1:${port}/api`, log, stderr };
}, 30_000);

afterAll(async () => {
  await children.stopAll();
  await redis?.stop();
  await database?.drop();
});

let addresses = 0;
/** An address never seen before (10.x.y.z), so the load itself is never limited. */
const anAddress = () => {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};
const answers: Answer[] = [];
const get = (ip: string, path = "/products") => aClient(() => shop.base, answers).call(path, "GET", path, undefined, { "x-forwarded-for": ip });

/**
 * Two readers, each asking again 10 ms after its answer, from a new address each time, until
 * stopped: a steady stream that always has a request on its way, without queueing the shop's own
 * work behind itself (what is measured is the wait on Redis, not the shop's capacity).
 */
function catalogLoad() {
  let running = true;
  const loops = [0, 1].map(async (n) => {
    while (running) {
      await get(anAddress(), n % 2 ? "/products" : "/locations");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/** LIMIT + 1 requests from one new address: the limit still holds, wherever it is counted. */
async function limitHolds() {
  const ip = anAddress();
  const statuses: number[] = [];
  for (let i = 0; i <= LIMIT; i++) statuses.push((await get(ip)).status);
  expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
  return ip;
}

/** Whether Redis holds a counter for the address (asked of the server itself: never while it is frozen, which would wait for ever). */
const countedInRedis = (ip: string) =>
  Bun.spawnSync(["redis-cli", "-p", String(redis.port), "--scan", "--pattern", `storefront:*${ip}*`], { timeout: 5_000 })
    .stdout.toString()
    .trim() !== "";
const loggedSince = (event: string, since: number) => shop.log.filter((entry) => entry.event === event && Date.parse(String(entry.time)) >= since).length;
/** Where the shop counts now, as its log last said: `ratelimit.degraded` (memory) or `ratelimit.restored` (Redis). */
const lastRateLimitEvent = () => shop.log.filter((entry) => String(entry.event).startsWith("ratelimit.")).at(-1)?.event;
const answeredSince = (since: number) => answers.filter((a) => a.asked >= since).length;

test("Redis frozen (SIGSTOP), thawed, killed (SIGKILL) and started again under load: no request fails or waits over 300 ms; the limit goes on in memory meanwhile, and is counted in Redis again once it is back", async () => {
  const phases: Record<string, number> = {};
  const stop = catalogLoad();
  try {
    // Warmed up (the first requests of a process open its database connections): from here on every answer counts.
    await eventually(() => expect(answers.length).toBeGreaterThanOrEqual(50), 10_000);
    phases.warm = Date.now();
    // Counting in Redis (on a machine busy enough to make Redis late, the shop may have turned to memory already, and back).
    await eventually(async () => expect(countedInRedis(await limitHolds())).toBe(true), 10_000);

    redis.pause();
    phases.frozen = Date.now();
    await eventually(() => expect(answeredSince(phases.frozen!)).toBeGreaterThanOrEqual(50), 10_000);
    // Counted in memory meanwhile (what was sent to the frozen Redis lands there once it thaws).
    await limitHolds();
    expect(lastRateLimitEvent()).toBe("ratelimit.degraded");

    redis.resume();
    phases.thawed = Date.now();
    await eventually(async () => expect(countedInRedis(await limitHolds())).toBe(true), 10_000);
    expect(loggedSince("ratelimit.restored", phases.thawed)).toBeGreaterThanOrEqual(1);

    await redis.kill();
    phases.killed = Date.now();
    await eventually(() => expect(answeredSince(phases.killed!)).toBeGreaterThanOrEqual(50), 10_000);
    // Counted in memory meanwhile: Redis is gone.
    await limitHolds();
    expect(lastRateLimitEvent()).toBe("ratelimit.degraded");

    // Marked before: the shop may find it (and say so) before the start's own check has.
    phases.started = Date.now();
    await redis.start();
    await eventually(async () => expect(countedInRedis(await limitHolds())).toBe(true), 10_000);
    expect(loggedSince("ratelimit.restored", phases.started)).toBeGreaterThanOrEqual(1);
  } finally {
    await stop();
    if (shop.server.exitCode !== null) console.error("the shop died:", shop.server.exitCode, shop.stderr().slice(-3000), JSON.stringify(shop.log.slice(-5)));
  }
  const measured = answers.filter((a) => a.asked >= phases.warm!);
  expect(measured.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
  // How long each request took in the shop, from its first hook to its answer (its request log
  // line): the bound is the shop's. The client's clock adds whatever a busy machine makes the test
  // process wait, so it is held to a looser bound, which a shop stalled before its first hook (its
  // event loop blocked) would still break.
  const inShop = (a: Answer) => Number(shop.log.find((entry) => entry.event === "request" && entry.requestId === a.requestId)?.durationMs);
  const when = (t: number) =>
    Object.entries(phases)
      .filter(([, at]) => at <= t)
      .map(([name, at]) => `${name}+${t - at}`)
      .at(-1);
  const described = (a: Answer) => `${a.what} ${a.status}: ${inShop(a)} ms in the shop, ${a.answered - a.asked} ms at the client, asked at ${when(a.asked)}`;
  expect(measured.filter((a) => !(inShop(a) <= BOUND_MS)).map(described)).toEqual([]);
  expect(measured.filter((a) => a.answered - a.asked > CLIENT_BOUND_MS).map(described)).toEqual([]);
}, 60_000);
