import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { Client } from "pg";
import { type Db, openDatabase } from "../../src/adapters/db/database.ts";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// A transaction left open on a row the shop needs (in psql, by an operator's job) made every request
// that needed the row wait for as long as it stayed open, each holding one of the pool's ten
// connections: one shopper pressing Checkout a dozen times took the pool, and every route of the
// instance, browsing too, answered 503 until the transaction ended (found by trying it). The shop's
// sessions now wait LOCK_TIMEOUT at most (5 s; 300 ms here, set as an operator would with PGOPTIONS).
const WAIT = "300ms";
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

let database: TestDatabase;
let shop: Db;
let deps: ReturnType<typeof createPgDeps>;
let t: ReturnType<typeof createTestApp<ReturnType<typeof createPgDeps>>>;
const holders: Client[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  shop = openDatabase({ kind: "postgres", url: database.url, options: `-c lock_timeout=${WAIT}` }).db;
  deps = createPgDeps(shop);
  t = createTestApp(deps);
});
beforeEach(() => database.truncate());
afterEach(async () => {
  await Promise.all(holders.splice(0).map((holder) => holder.end()));
});
afterAll(async () => {
  await shop.destroy();
  await database.drop();
});

/** Another session's transaction holding `lockStatement`'s locks until release() commits it. */
async function holding(lockStatement: string, values: unknown[]) {
  const holder = new Client({ connectionString: database.url });
  holders.push(holder);
  await holder.connect();
  await holder.query("begin");
  await holder.query(lockStatement, values);
  return { release: () => holder.query("commit") };
}

async function shopperWithCart() {
  const sauce = aProduct({ inventory: 10 });
  await deps.repos.products.create(sauce);
  const shopper = await signedInAs(t);
  expect((await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 2 }, headers: shopper.headers })).status).toBe(200);
  return { sauce, shopper };
}

// A 5xx names no details (the cause is for the log); Retry-After says when to ask again.
const busy = { error: "What this needs is busy just now; please try again shortly" };

test("a checkout whose product another session holds locked is a 503 with Retry-After once the wait is up, with nothing half done; once let go it goes through", async () => {
  const { sauce, shopper } = await shopperWithCart();
  const lock = await holding("select 1 from products where id = $1 for update", [sauce.id]);

  const refused = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers });
  expect([refused.status, refused.body]).toEqual([503, busy]);
  expect(refused.headers.get("retry-after")).toBe("2");
  expect((await t.call("GET", "/api/cart", { headers: shopper.headers })).body.items.map((line: { quantity: number }) => line.quantity)).toEqual([2]);
  expect((await deps.repos.products.findById(sauce.id))!.inventory).toBe(10);
  expect((await t.call("GET", "/api/orders", { headers: shopper.headers })).body).toEqual([]);

  await lock.release();
  const placed = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers });
  expect(placed.status).toBe(200);
  expect((await deps.repos.products.findById(sauce.id))!.inventory).toBe(8);
});

test("a shopper pressing Checkout fifteen times while the product is held takes no route down: each press is answered 503, and the catalog answers meanwhile", async () => {
  const { sauce, shopper } = await shopperWithCart();
  await holding("select 1 from products where id = $1 for update", [sauce.id]);

  const presses = Array.from({ length: 15 }, () => t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers }));
  // Asked while the presses hold or wait for the pool's ten connections: without the lock's limit,
  // the connections stayed taken and this waited 5 s for one, then was a 503 too.
  const catalog = await t.call("GET", "/api/products");
  expect(catalog.status).toBe(200);
  const answers = await Promise.all(presses);
  expect(answers.map((answer) => [answer.status, answer.body])).toEqual(Array(15).fill([503, busy]));
  expect((await deps.repos.products.findById(sauce.id))!.inventory).toBe(10);
}, 30_000);

test("a payment of an order another session holds locked is a 503 before the processor is asked: the order stays payable, and is paid once let go", async () => {
  const { shopper } = await shopperWithCart();
  const placed = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: shopper.headers });
  const orderId: string = placed.body.orderId;
  const lock = await holding("select 1 from orders where id = $1 for update", [orderId]);

  const refused = await t.call("POST", "/api/payment", { body: { orderId, paymentMethodId: "pm_card_visa" }, headers: shopper.headers });
  expect([refused.status, refused.body]).toEqual([503, busy]);
  await lock.release();
  const order = (await deps.repos.orders.findById(orderId))!;
  expect([order.paymentStatus, order.paymentStartedAt]).toEqual(["PENDING", null]);
  expect((await deps.processor.retrieveIntent(order.stripePaymentIntentId!)).status).toBe("requires_payment_method");

  const paid = await t.call("POST", "/api/payment", { body: { orderId, paymentMethodId: "pm_card_visa" }, headers: shopper.headers });
  expect([paid.status, paid.body.success, paid.body.order.paymentStatus]).toEqual([200, true, "PAID"]);
});

test("an instance starting while another migrates waits for it past the lock limit, then migrates", async () => {
  const empty = await createTestDatabase({ migrate: false });
  const starting = openDatabase({ kind: "postgres", url: empty.url, options: `-c lock_timeout=${WAIT}` });
  const migrating = new Client({ connectionString: empty.url });
  try {
    await migrating.connect();
    // The advisory lock Kysely's migrator takes for a run, held by the other instance.
    await migrating.query("select pg_advisory_lock(3853314791062309107)");
    const applied = migrateToLatest(starting.db);
    await eventually(async () => {
      const { rows } = await migrating.query("select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted");
      expect(rows[0].n).toBe(1);
    });
    // Held twice as long as the starting instance waits for any other lock.
    await Bun.sleep(600);
    await migrating.query("select pg_advisory_unlock(3853314791062309107)");
    expect((await applied).length).toBeGreaterThan(20);
  } finally {
    await migrating.end();
    await starting.close();
    await empty.drop();
  }
}, 30_000);
