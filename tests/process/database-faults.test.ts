import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Db, openDatabase } from "../../src/adapters/db/database.ts";
import { problemsInBooks, unfinished } from "../support/books.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { type OwnPostgres, startOwnPostgres } from "../support/own-postgres.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type Server, processes, startedAndFollowed } from "../support/processes.ts";
import { type Answer, type Client, aClient, shoppingLoad, signedIn, tally } from "../support/shop-load.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

// Decisions §14: PostgreSQL restarted under load, and every connection of the shop cut again and
// again, on a cluster of this test's own (never the machine's server). A shop on it pays through
// the Stripe test server while shoppers add to their carts, check out and pay; housekeeping runs
// every second with a grace of one, so what an outage left half done is settled before the books
// are checked against Stripe's.
const children = processes();
let cluster: OwnPostgres;
let stripe: StripeTestServer;
let db: Db;
let shop: { server: Server; base: string; log: Record<string, unknown>[]; stderr: () => string };
let shoppers: Client[];
const SHOPPERS = 4;

beforeAll(async () => {
  [cluster, stripe] = await Promise.all([startOwnPostgres(), startStripeTestServer()]);
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: cluster.url(),
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
    RATE_LIMIT_MAX: "0",
    PASSWORD_RATE_LIMIT_MAX: "0",
    MAX_UNPAID_ORDERS: "1000",
    HOUSEKEEPING_INTERVAL_SECONDS: "1",
    HOUSEKEEPING_GRACE_SECONDS: "1",
  });
  const { port, log, stderr } = await startedAndFollowed(server);
  shop = { server, base: `http://127.0.0.1:${port}/api`, log, stderr };
  db = openDatabase({ kind: "postgres", url: cluster.testUrl() }).db;
  // One at a time: one address has one password check waiting at most.
  shoppers = [];
  for (let i = 0; i < SHOPPERS; i++)
    shoppers.push(
      await signedIn(
        aClient(() => shop.base),
        `shopper-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
      ),
    );
}, 30_000);

afterAll(async () => {
  await children.stopAll();
  await db?.destroy();
  stripe?.close();
  await cluster?.destroy();
});

/** Three sauces of plenty of stock, new for each test, and how many units each starts with. */
async function sauces(): Promise<Map<string, number>> {
  const products = [1, 2, 3].map(() => aProduct({ price: 1299, inventory: 10_000 }));
  const repos = createPgDeps(db).repos;
  for (const product of products) await repos.products.create(product);
  return new Map(products.map((product) => [product.id, product.inventory]));
}

/** Forgets the shoppers' answers so far (a test looks at its own). */
function answersFromNow(): void {
  for (const shopper of shoppers) shopper.answers.length = 0;
}
const allAnswers = () => shoppers.flatMap((shopper) => shopper.answers);
const paymentsSince = (since: number) => allAnswers().filter((a) => a.what === "payment" && a.status === 200 && a.asked >= since).length;

/** What the shop's log says of these answers' requests: why each was refused. */
const reasons = (answers: Answer[]) =>
  answers
    .map((a) => {
      const line = shop.log.find((entry) => entry.requestId === a.requestId && entry.event !== "request");
      return `${a.what} ${a.status} ${line ? JSON.stringify(line) : ""}`;
    })
    .join("\n");

/** The shop lived through it (a process that died says why on stderr). */
const expectAlive = () => expect(shop.server.exitCode, shop.stderr().slice(-3000)).toBeNull();

/** Every 5xx must be a 503 carrying Retry-After, and every request answered. */
function refusalsThatAreNot503(answers: Answer[]) {
  return answers
    .filter((a) => a.status === 0 || (a.status >= 500 && (a.status !== 503 || !a.retryAfter)))
    .map((a) => `${a.what} ${a.status} ${JSON.stringify(a.body)}`);
}
const failed = (a: Answer) => a.status !== 200;
/** How long after a cut the shop may still take a connection that died idle in its pool (the news is on its way). */
const PICKED_UP_DEAD_MS = 250;

test("PostgreSQL restarted (pg_ctl stop -m fast, then start) under checkout and payment load: 503 with Retry-After while it is down, never a 500; full service within 5 s of its return; nothing lost", async () => {
  const stock = await sauces();
  answersFromNow();
  const load = shoppingLoad(shoppers, [...stock.keys()]);
  let stopped = 0;
  let starting = 0;
  let ready = 0;
  try {
    await eventually(() => expect(paymentsSince(0)).toBeGreaterThanOrEqual(SHOPPERS), 10_000);
    await cluster.stop("fast");
    stopped = Date.now();
    // The shop is asked while the database is away: a few answers to requests made after it stopped.
    await eventually(() => expect(allAnswers().filter((a) => a.asked >= stopped).length).toBeGreaterThanOrEqual(3 * SHOPPERS), 5_000);
    starting = Date.now();
    await cluster.start();
    ready = Date.now();
    // Full service: every step of a purchase answered 200 again, asked after the database came back;
    // then a round more of every shopper, to see that it holds.
    await eventually(() => {
      const since = allAnswers().filter((a) => a.asked >= ready && a.status === 200);
      expect(new Set(since.map((a) => a.what))).toEqual(new Set(["cart", "checkout", "payment"]));
    }, 5_000);
    const holds = Date.now();
    await eventually(() => expect(allAnswers().filter((a) => a.asked >= holds && a.status === 200).length).toBeGreaterThanOrEqual(2 * SHOPPERS), 5_000);
  } finally {
    await load.stop();
  }
  expectAlive();
  const answers = allAnswers();
  const counts = tally(answers);
  expect(refusalsThatAreNot503(answers), JSON.stringify(counts)).toEqual([]);
  // While it was down (asked after it stopped, answered before it was started again), every answer was a refusal.
  const whileDown = answers.filter((a) => a.asked >= stopped && a.answered <= starting);
  expect(whileDown.length).toBeGreaterThan(0);
  expect(whileDown.filter((a) => a.status !== 503)).toEqual([]);
  // Full service came back within 5 s of the database: the last refusal after it was started again
  // was answered within 5 s, and every step of a purchase succeeded after it.
  const refusedSince = answers.filter((a) => a.asked >= starting && failed(a));
  const back = Math.max(ready, ...refusedSince.map((a) => a.answered));
  expect(back - ready, reasons(refusedSince)).toBeLessThan(5_000);
  expect(new Set(answers.filter((a) => a.asked >= back && a.status === 200).map((a) => a.what))).toEqual(new Set(["cart", "checkout", "payment"]));
  // Housekeeping settles what the outage left (payments Stripe answered while the database was away).
  await eventually(async () => expect(await unfinished(db)).toEqual({ paymentsStarted: 0, withoutIntent: 0, refundsDue: 0 }), 10_000);
  expect(await problemsInBooks(db, stripe, stock)).toEqual([]);
}, 40_000);

test("every shop connection cut with pg_terminate_backend, again and again, under load: only requests in flight are refused (503, Retry-After), never a 500; every half-done one rolled back", async () => {
  const stock = await sauces();
  answersFromNow();
  const load = shoppingLoad(shoppers, [...stock.keys()]);
  // When each cut began, and when it had been made (PostgreSQL answered the terminations).
  const cuts: Array<{ from: number; to: number }> = [];
  let killed = 0;
  try {
    await eventually(() => expect(paymentsSince(0)).toBeGreaterThanOrEqual(SHOPPERS), 10_000);
    for (let i = 0; i < 8; i++) {
      const from = Date.now();
      killed += await cluster.terminateConnections("postgres");
      cuts.push({ from, to: Date.now() });
      // The next cut once the shop has taken new connections and served on them.
      await eventually(
        () => expect(allAnswers().filter((a) => a.asked >= from && a.status === 200).length, JSON.stringify(tally(allAnswers()))).toBeGreaterThanOrEqual(2),
        5_000,
      );
    }
  } finally {
    await load.stop();
  }
  expectAlive();
  const answers = allAnswers();
  const counts = tally(answers);
  expect(killed).toBeGreaterThan(0);
  expect(refusalsThatAreNot503(answers), JSON.stringify(counts)).toEqual([]);
  // Each refusal was in flight at a cut: asked before it was made (or within a moment after, when the
  // pool had not yet heard that an idle connection of its had died), and answered after it began.
  const inFlight = (a: Answer) => cuts.some((cut) => a.asked <= cut.to + PICKED_UP_DEAD_MS && a.answered >= cut.from);
  expect(answers.filter((a) => failed(a) && !inFlight(a)).map((a) => `${a.what} ${a.status} ${a.asked - cuts[0]!.from}`)).toEqual([]);
  await eventually(async () => expect(await unfinished(db)).toEqual({ paymentsStarted: 0, withoutIntent: 0, refundsDue: 0 }), 10_000);
  expect(await problemsInBooks(db, stripe, stock)).toEqual([]);
}, 40_000);
