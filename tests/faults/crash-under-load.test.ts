import { afterAll, beforeAll, expect, test } from "bun:test";
import { problemsInBooks, unfinished } from "../support/books.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type Server, processes, startedAndFollowed } from "../support/processes.ts";
import { type Client, type InFlight, PASSWORD, aClient, shoppingLoad, signedIn, tally } from "../support/shop-load.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

// Decisions §14: the process killed (SIGKILL) in the middle of checkouts, payments and refunds.
// tests/process/crash-recovery.test.ts kills a shop at the two worst moments, one at a time; here
// shoppers buy and staff refund all the while, the shop is killed whenever a checkout, a payment
// and a refund are all on their way (Stripe answering 100 ms late, so some are with Stripe then),
// three times over, and each time started again with housekeeping running once, at start (every
// hour after that), past a grace of one second. After that one pass the books must add up against
// Stripe's own: every unit of stock on a shelf or in a live order; every payment Stripe took a PAID
// order's, or refunded; no order charged twice; no refund made twice.
const KILLS = 3;
const GRACE_S = 1;
const ADMIN = { email: "admin@example.com", password: PASSWORD };

const children = processes();
let database: TestDatabase;
let stripe: StripeTestServer;
const stock = new Map<string, number>();
let base = "";
const inFlight: InFlight = new Map();

beforeAll(async () => {
  [database, stripe] = await Promise.all([createTestDatabase(), startStripeTestServer()]);
  const repos = createPgDeps(database.db).repos;
  for (const sauce of [1, 2, 3].map(() => aProduct({ price: 1299, inventory: 10_000 }))) {
    await repos.products.create(sauce);
    stock.set(sauce.id, sauce.inventory);
  }
  stripe.slowDown(100);
}, 30_000);

afterAll(async () => {
  await children.stopAll();
  stripe?.close();
  await database?.drop();
});

/** A shop whose one housekeeping pass is the one at its start. */
async function startShop(): Promise<{ server: Server; log: Record<string, unknown>[] }> {
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    AUTH_SECRET: "one-secret-for-every-start-of-the-shop-0123456789",
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
    RATE_LIMIT_MAX: "0",
    PASSWORD_RATE_LIMIT_MAX: "0",
    MAX_UNPAID_ORDERS: "1000",
    HOUSEKEEPING_INTERVAL_SECONDS: "3600",
    HOUSEKEEPING_GRACE_SECONDS: String(GRACE_S),
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  });
  const { port, log } = await startedAndFollowed(server);
  base = `http://127.0.0.1:${port}/api`;
  return { server, log };
}

/** Staff ending paid orders (a refund each) as shoppers pay them, until stopped. */
function refunding(admin: Client, shoppers: Client[]) {
  let running = true;
  const ended = new Set<string>();
  const loop = (async () => {
    while (running) {
      const paid = shoppers
        .flatMap((s) => s.answers)
        .filter((a) => a.what === "payment" && a.status === 200 && a.body.order?.paymentStatus === "PAID")
        .map((a) => a.body.order.id as string)
        .find((id) => !ended.has(id));
      if (!paid) {
        // Nothing paid yet to end: look again in a moment.
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      ended.add(paid);
      await admin.call("refund", "PUT", `/orders/${paid}/status`, { status: "CANCELLED" });
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

const busy = (what: string) => (inFlight.get(what) ?? 0) > 0;

test(`killed with SIGKILL ${KILLS} times while checkouts, payments and refunds are on their way; after each restart's one housekeeping pass, the books add up against Stripe's`, async () => {
  let shop = await startShop();
  const admin = await signedIn(
    aClient(() => base, [], { inFlight }),
    ADMIN.email,
    { register: false },
  );
  const shoppers: Client[] = [];
  for (let i = 0; i < 6; i++)
    shoppers.push(
      await signedIn(
        aClient(() => base, [], { inFlight }),
        `crash-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
      ),
    );

  for (let kill = 0; kill < KILLS; kill++) {
    const load = shoppingLoad(shoppers, [...stock.keys()]);
    const stopRefunds = refunding(admin, shoppers);
    const refundsBefore = stripe.refunds.length;
    // Some of each done in this run, then the moment a checkout, a payment and a refund are all on their way.
    await eventually(() => {
      expect(stripe.refunds.length - refundsBefore).toBeGreaterThanOrEqual(2);
      expect([busy("checkout"), busy("payment"), busy("refund")]).toEqual([true, true, true]);
    }, 30_000);
    shop.server.kill("SIGKILL");
    const killedAt = Date.now();
    await shop.server.exited;
    await Promise.all([load.stop(), stopRefunds()]);
    // Past the grace time, what the kill left counts as abandoned at the next start.
    await eventually(() => expect(Date.now() - killedAt).toBeGreaterThan(GRACE_S * 1000), 5_000);

    shop = await startShop();
    // Its one pass has settled every payment attempt and stored every intent the kill left.
    await eventually(async () => expect(await unfinished(database.db)).toMatchObject({ paymentsStarted: 0, withoutIntent: 0 }), 15_000);
    expect(await problemsInBooks(database.db, stripe, stock)).toEqual([]);
  }

  const answers = [...admin.answers, ...shoppers.flatMap((s) => s.answers)];
  // Each kill cut requests short (no answer), and nothing else failed on the shop's side.
  expect(answers.filter((a) => a.status === 0).length).toBeGreaterThanOrEqual(KILLS);
  expect(answers.filter((a) => a.status >= 500).map((a) => `${a.what} ${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
  expect(tally(answers)).toMatchObject({ "checkout 200": expect.any(Number), "payment 200": expect.any(Number), "refund 200": expect.any(Number) });
  // A refund whose process died mid-call is asked again after 2 minutes (its lease): until then it is due, its money either back already or still the order's.
  const due = await database.db.selectFrom("refunds").select(["order_id", "intent_id"]).where("confirmed_at", "is", null).execute();
  for (const refund of due) {
    const order = await database.db.selectFrom("orders").select(["status", "payment_status"]).where("id", "=", refund.order_id).executeTakeFirstOrThrow();
    expect(order).toEqual({ status: "CANCELLED", payment_status: "PAID" });
  }
}, 120_000);
