// GET /api/cart and POST /api/cart for signed-in users on PostgreSQL, and the same GET on a bare
// Bun.serve + pg handler (the floor): `npm run bench:cart`. The last line reads
// `cart: GET <N> requests/s, p99 <M> ms; POST <P> requests/s; layers <L> % of the floor`.
import { startSession } from "../src/application/auth/start-session.ts";
import { makeUseCases } from "../src/application/use-cases.ts";
import { silentLogger } from "../src/adapters/log.ts";
import { createSessionTokens } from "../src/adapters/http/session.ts";
import { buildRuntime } from "../src/compose.ts";
import { commonPasswords } from "../src/adapters/crypto/common-passwords.ts";
import { loadConfig } from "../src/config.ts";
import { aUser } from "../tests/support/builders.ts";
import { BENCH_PORT, type LoadResult, load, loadRotating, prepareDatabase, printTable, startServer } from "./support.ts";

const SECRET = "bench-secret-bench-secret-bench-secret-42";
const WRITERS = 50;
const origin = { ipAddress: "127.0.0.1", userAgent: "bench" };

const databaseUrl = await prepareDatabase();
const config = loadConfig({ DATABASE_URL: databaseUrl }, commonPasswords);
const runtime = buildRuntime(config, silentLogger);
// Plenty of stock, so the adds measure the path, not the refusals.
await runtime.db.updateTable("products").set({ inventory: 1_000_000 }).execute();
const useCases = makeUseCases(runtime.deps, { publicUrl: config.publicUrl });
const products = (await useCases.listProducts({ sort: "newest", page: 1, limit: 100 })).items;
const tokens = createSessionTokens(SECRET, runtime.deps.clock);

async function customer() {
  const user = { ...aUser(), passwordHash: null };
  await runtime.deps.uow.transaction((tx) => tx.users.create(user));
  const session = await runtime.deps.uow.transaction((tx) => startSession(tx, runtime.deps, user));
  return { user, cookie: `storefront.session-token=${await tokens.issue(session)}` };
}

const reader = await customer();
for (const product of products.slice(0, 5)) await useCases.addToCart(reader.user.id, { productId: product.id, quantity: 2 }, origin);
const writers = await Promise.all(Array.from({ length: WRITERS }, customer));
await runtime.close();

// Consecutive requests go to different users, so 50 connections rarely wait on the same cart lock;
// each (user, product) pair is hit about 20 times in 10 s, far below the 99-per-line limit.
const variants = products.flatMap((product) =>
  writers.map((w) => ({
    headers: { cookie: w.cookie, "content-type": "application/json" },
    body: JSON.stringify({ productId: product.id, quantity: 1 }),
  })),
);

// The app and the floor run side by side (on two ports) and take turns, so both see the same machine.
const app = await startServer({ DATABASE_URL: databaseUrl, AUTH_SECRET: SECRET });
const floor = await startServer(
  { DATABASE_URL: databaseUrl, AUTH_SECRET: SECRET, PORT: String(BENCH_PORT + 1) },
  "bench/baseline-cart-server.ts",
  "/",
  BENCH_PORT + 1,
);
const cookie = { cookie: reader.cookie };
const median = (rs: LoadResult[]) => [...rs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(rs.length / 2)] as LoadResult;
try {
  await load("warm-up", `${app.base}/api/cart`, { seconds: 3, headers: cookie });
  await load("warm-up", floor.base, { seconds: 3, headers: cookie });
  const appRuns: LoadResult[] = [];
  const floorRuns: LoadResult[] = [];
  for (let round = 0; round < 3; round++) {
    appRuns.push(await load("GET /api/cart (5 lines), median of 3", `${app.base}/api/cart`, { headers: cookie }));
    floorRuns.push(await load("GET cart, bare Bun.serve + jose + pg (floor), median of 3", floor.base, { headers: cookie }));
  }
  const getApp = median(appRuns);
  const getFloor = median(floorRuns);
  const post = await loadRotating("POST /api/cart (50 users in turn)", `${app.base}/api/cart`, variants, { method: "POST" });
  printTable([getApp, getFloor, post]);
  console.log(
    `\nGET /api/cart runs (app / floor): ${appRuns.map((r) => r.requestsPerSecond).join(", ")} / ${floorRuns.map((r) => r.requestsPerSecond).join(", ")}`,
  );
  const layers = ((1 - getApp.requestsPerSecond / getFloor.requestsPerSecond) * 100).toFixed(1);
  console.log(`layers' cost on GET /api/cart: ${layers} % of the floor's throughput`);
  console.log(
    `cart: GET ${getApp.requestsPerSecond} requests/s, p99 ${getApp.p99} ms; POST ${post.requestsPerSecond} requests/s; layers ${layers} % of the floor`,
  );
} finally {
  app.stop();
  floor.stop();
}
