import { afterAll, beforeAll, expect, test } from "bun:test";
import { problemsInBooks, unfinished } from "../support/books.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { processes, startedAndFollowed } from "../support/processes.ts";
import { type Answer, type Client, TEXAS, aClient, shoppingLoad, signedIn, tally, timings } from "../support/shop-load.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

// Decisions §14: the processor slow, failing or timing out, and a refund held for a minute. Shops
// on PostgreSQL paying through the Stripe test server, which answers late, fails with 500s (before
// or after doing the work) or holds its answers. docs/orders-and-payments.md, "When the processor
// is slow or failing": one try waits STRIPE_TIMEOUT_SECONDS, a call is tried three times, so a
// payment waits on Stripe at most about three times that plus 1.5 s; an attempt whose outcome
// Stripe did not give is settled by housekeeping from Stripe's own state of the intent.
const TIMEOUT_S = 1;
/** What a payment may take at worst: three tries, the SDK's backoff between them (at most 1.5 s), and the shop's own work. */
const PAYMENT_BOUND_MS = 3 * TIMEOUT_S * 1000 + 1_500 + 500;
const GRACE_S = 5;
const ADMIN = { email: "admin@example.com", password: "sauce lover 99" };

const children = processes();
let database: TestDatabase;
let stripe: StripeTestServer;
const stock = new Map<string, number>();
let productId = "";

beforeAll(async () => {
  [database, stripe] = await Promise.all([createTestDatabase(), startStripeTestServer()]);
  const sauce = aProduct({ price: 1299, inventory: 100_000 });
  await createPgDeps(database.db).repos.products.create(sauce);
  stock.set(sauce.id, sauce.inventory);
  productId = sauce.id;
}, 30_000);

afterAll(async () => {
  await children.stopAll();
  stripe?.close();
  await database?.drop();
});

/** A shop on the test database and Stripe server: housekeeping every second, after a grace longer than a payment's worst case. */
async function startShop(env: Record<string, string> = {}) {
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
    RATE_LIMIT_MAX: "0",
    PASSWORD_RATE_LIMIT_MAX: "0",
    MAX_UNPAID_ORDERS: "1000",
    HOUSEKEEPING_INTERVAL_SECONDS: "1",
    HOUSEKEEPING_GRACE_SECONDS: String(GRACE_S),
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  const { port, log } = await startedAndFollowed(server);
  return { server, base: `http://127.0.0.1:${port}/api`, log };
}
type Shop = Awaited<ReturnType<typeof startShop>>;

let shop: Shop;
const shoppers: Client[] = [];
const PAYERS = 6;

/** An order of each shopper's, checked out and waiting to be paid. */
async function ordersToPay(payers: Client[]): Promise<string[]> {
  return Promise.all(
    payers.map(async (shopper) => {
      expect((await shopper.call("cart", "POST", "/cart", { productId, quantity: 1 })).status).toBe(200);
      const placed = await shopper.call("checkout", "POST", "/cart/checkout", { shippingAddress: TEXAS });
      expect(placed.status).toBe(200);
      return placed.body.orderId as string;
    }),
  );
}
const pay = (shopper: Client, orderId: string) => shopper.call("payment", "POST", "/payment", { orderId, paymentMethodId: "pm_card_visa" });
const payAll = (orderIds: string[]) => Promise.all(orderIds.map((orderId, i) => pay(shoppers[i]!, orderId)));
const settledBooks = async () => {
  // One housekeeping pass past the grace time settles every attempt Stripe did not answer for.
  await eventually(async () => expect(await unfinished(database.db)).toEqual({ paymentsStarted: 0, withoutIntent: 0, refundsDue: 0 }), (GRACE_S + 5) * 1000);
  expect(await problemsInBooks(database.db, stripe, stock)).toEqual([]);
};
const durations = (answers: Answer[]) => answers.map((a) => a.answered - a.asked);

test("the shop with STRIPE_TIMEOUT_SECONDS=1", async () => {
  shop = await startShop({ STRIPE_TIMEOUT_SECONDS: String(TIMEOUT_S) });
  for (let i = 0; i < PAYERS; i++)
    shoppers.push(
      await signedIn(
        aClient(() => shop.base),
        `payer-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
      ),
    );
}, 30_000);

test("Stripe answering slowly: a payment waits for it while within the timeout, and gives up after three tries past it; the payment p99 is bounded all the same, and no order ends half-paid", async () => {
  stripe.slowDown(600, "/confirm");
  const inTime = await payAll(await ordersToPay(shoppers));
  expect(inTime.map((a) => [a.status, a.body.order?.paymentStatus])).toEqual(shoppers.map(() => [200, "PAID"]));
  expect(Math.min(...durations(inTime))).toBeGreaterThanOrEqual(600);
  expect(timings(inTime).p99).toBeLessThan(PAYMENT_BOUND_MS);

  // Slower than a try waits: every confirmation is made at Stripe (the money taken), its answer never heard.
  stripe.slowDown(2_500, "/confirm");
  const late = await payAll(await ordersToPay(shoppers));
  stripe.slowDown(0);
  expect(late.map((a) => [a.status, a.body.error])).toEqual(shoppers.map(() => [500, "Payment processing failed"]));
  expect(timings(late).p99).toBeLessThan(PAYMENT_BOUND_MS);
  await settledBooks();
}, 60_000);

test("Stripe failing with 5xx, before the work or after it (the money taken, the failure its answer), and timing out: each payment answers within the bound, and no order ends half-paid", async () => {
  const [before, after, held] = await ordersToPay(shoppers.slice(0, 3));
  stripe.failNext(3, 500);
  const failedBefore = await pay(shoppers[0]!, before!);
  stripe.failNext(3, 503, { afterRunning: true });
  const failedAfter = await pay(shoppers[1]!, after!);
  const hold = stripe.holdNext("/confirm");
  const timedOut = await pay(shoppers[2]!, held!);
  hold.release();
  for (const answer of [failedBefore, failedAfter, timedOut]) {
    expect([answer.status, answer.body.error]).toEqual([500, "Payment processing failed"]);
    expect(answer.answered - answer.asked).toBeLessThan(PAYMENT_BOUND_MS);
  }
  await settledBooks();
  // The order Stripe never charged is payable again, and charged once when paid.
  const again = await pay(shoppers[0]!, before!);
  expect([again.status, again.body.order?.paymentStatus]).toEqual([200, "PAID"]);
  await settledBooks();
}, 60_000);

test("a refund held at Stripe for 60 s, on a shop with the default timeout (20 s): its move answers 200 once the tries are spent, its payment still PAID, the refund due; nothing else waits meanwhile; the refund is made once, and settled when asked again", async () => {
  const refunding = await startShop();
  const admin = await signedIn(
    aClient(() => refunding.base),
    ADMIN.email,
    { register: false },
  );
  const buyers: Client[] = [];
  for (let i = 0; i < 4; i++)
    buyers.push(
      await signedIn(
        aClient(() => refunding.base),
        `buyer-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
      ),
    );
  // Four paid orders: one refunded, three for staff to move along meanwhile.
  const paid = await Promise.all(
    buyers.map(async (buyer) => {
      await buyer.call("cart", "POST", "/cart", { productId, quantity: 1 });
      const { orderId } = (await buyer.call("checkout", "POST", "/cart/checkout", { shippingAddress: TEXAS })).body;
      expect((await pay(buyer, orderId)).body.order?.paymentStatus).toBe("PAID");
      return orderId as string;
    }),
  );
  const [refunded, ...others] = paid as [string, ...string[]];
  for (const buyer of buyers) buyer.answers.length = 0;

  const hold = stripe.holdNext("/refunds");
  const moved = admin.call("refund", "PUT", `/orders/${refunded}/status`, { status: "CANCELLED" });
  await hold.ran;
  const heldAt = Date.now();
  // Meanwhile: shoppers keep buying, and staff read the refunded order and move the others along.
  const load = shoppingLoad(buyers, [productId], { between: 200 });
  const staff: Answer[] = [];
  const release = Bun.sleep(60_000).then(() => hold.release());
  let staffWorking = true;
  const staffLoop = (async () => {
    for (let round = 0; staffWorking; round++) {
      staff.push(await admin.call("read", "GET", `/orders/${refunded}`));
      const other = others[round % others.length]!;
      // Each of the others moved on once, then looked at.
      if (round < others.length) staff.push(await admin.call("move", "PUT", `/orders/${other}/status`, { status: "PROCESSING" }));
      else staff.push(await admin.call("read", "GET", `/orders/${other}`));
      await Bun.sleep(250);
    }
  })();
  const answer = await moved;
  await release;
  staffWorking = false;
  await Promise.all([load.stop(), staffLoop]);

  // The move stands at once; the refund is due once the SDK's tries are spent (20 s, then the key in use twice).
  expect([answer.status, answer.body.status, answer.body.paymentStatus]).toEqual([200, "CANCELLED", "PAID"]);
  expect(answer.answered - answer.asked).toBeLessThan(3 * 20_000 + 2_500);
  // Nothing else waited on it: every purchase and every staff request of the minute answered at once.
  const meanwhile = [...buyers.flatMap((b) => b.answers), ...staff];
  expect(tally(meanwhile)).toMatchObject({ "checkout 200": expect.any(Number), "payment 200": expect.any(Number) });
  expect(meanwhile.filter((a) => a.status >= 500)).toEqual([]);
  expect(timings(meanwhile).max).toBeLessThan(2_000);
  expect(staff.filter((a) => a.what === "move").map((a) => [a.status, a.body.status])).toEqual(others.map(() => [200, "PROCESSING"]));
  const whileDue = staff.filter((a) => a.what === "read" && a.body.id === refunded);
  expect(whileDue.length).toBeGreaterThan(0);
  expect(whileDue.every((a) => a.body.status === "CANCELLED" && a.body.paymentStatus === "PAID")).toBe(true);
  expect(Date.now() - heldAt).toBeGreaterThanOrEqual(60_000);

  // Stripe made the refund once (the held one); asked again by housekeeping under the same key, its answer is replayed and settled.
  await eventually(async () => expect((await admin.call("read", "GET", `/orders/${refunded}`)).body.paymentStatus).toBe("REFUNDED"), 75_000);
  const intent = [...stripe.intents.values()].find((i) => i.metadata.orderId === refunded)!;
  expect(stripe.refunds.filter((r) => r.payment_intent === intent.id)).toHaveLength(1);
  await settledBooks();
}, 180_000);
