import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { Client } from "pg";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type Server, processes, waitForStart } from "../support/processes.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

// A real shop on PostgreSQL paying through Stripe (the Stripe-shaped test server), killed with
// SIGKILL at the worst moments of a checkout and a payment, then started again with housekeeping
// every second and a grace time of one second (decisions §15: every minute, after 2 minutes).
const children = processes();
let database: TestDatabase;
let stripe: StripeTestServer;
beforeAll(async () => {
  [database, stripe] = await Promise.all([createTestDatabase(), startStripeTestServer()]);
});
afterAll(async () => {
  await children.stopAll();
  stripe.close();
  await database.drop();
});

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
const PASSWORD = "sauce lover 99";

/**
 * A shop process on the test database and Stripe server (or, `fake`, the built-in fake processor);
 * `recovering`: housekeeping every second, with a one-second grace; `waitsOnLocks`: a lock the test
 * holds is waited for as long as it is held, not the shop's 2 s (a loaded machine can take longer
 * than that to see the shop waiting and kill it).
 */
async function startShop({
  recovering,
  fake = false,
  waitsOnLocks = false,
}: {
  recovering: boolean;
  fake?: boolean;
  waitsOnLocks?: boolean;
}): Promise<{ server: Server; base: string }> {
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    AUTH_SECRET: "one-secret-for-every-start-of-the-shop-0123456789",
    ...(fake ? {} : { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_API_BASE: stripe.url }),
    RATE_LIMIT_MAX: "0",
    ...(recovering ? { HOUSEKEEPING_INTERVAL_SECONDS: "1", HOUSEKEEPING_GRACE_SECONDS: "1" } : {}),
    ...(waitsOnLocks ? { PGOPTIONS: "-c lock_timeout=0" } : {}),
  });
  const { port } = await waitForStart(server);
  return { server, base: `http://127.0.0.1:${port}/api` };
}

async function kill(server: Server) {
  server.kill("SIGKILL");
  await server.exited;
}

/** A shopper, signed in, with two units of a sauce of its own in the cart. */
async function aShopper(base: string) {
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await createPgDeps(database.db).repos.products.create(sauce);
  const email = `crash-${crypto.randomUUID().slice(0, 8)}@example.com`;
  let cookie = "";
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, at = base) => {
    const res = await fetch(`${at}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    cookie = res.headers.getSetCookie()[0]?.split(";")[0] ?? cookie;
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
  };
  expect((await call("POST", "/auth/register", { email, password: PASSWORD })).status).toBe(201);
  expect((await call("POST", "/auth/callback/credentials", { email, password: PASSWORD })).status).toBe(200);
  expect((await call("POST", "/cart", { productId: sauce.id, quantity: 2 })).status).toBe(200);
  /** The id of the one order this shopper has. */
  const onlyOrder = async () => {
    const { rows } = await sql<{ id: string }>`select orders.id from orders join users on users.id = orders.user_id where users.email = ${email}`.execute(
      database.db,
    );
    expect(rows).toHaveLength(1);
    return rows[0]!.id;
  };
  return { call, sauce, onlyOrder };
}

const orderRow = async (orderId: string) =>
  (
    await sql<{
      order_number: string;
      status: string;
      payment_status: string;
      total_cents: number;
      stripe_payment_intent_id: string | null;
      payment_started_at: Date | null;
    }>`select order_number, status, payment_status, total_cents, stripe_payment_intent_id, payment_started_at from orders where id = ${orderId}`.execute(
      database.db,
    )
  ).rows[0]!;
const intentsOf = (orderId: string) => [...stripe.intents.values()].filter((intent) => intent.metadata.orderId === orderId);
const chargesOf = (intentId: string) => [...stripe.charges.values()].filter((charge) => charge.payment_intent === intentId && charge.paid).length;
const confirmationsOf = (intentId: string) => stripe.calls.filter((c) => c.path === `/v1/payment_intents/${intentId}/confirm` && !c.replayed).length;

test("killed between the checkout's commit and storing its intent: within a housekeeping pass of the restart the order has its intent and is payable, the checkout replayed with its key answers that order, and it is charged once", async () => {
  const first = await startShop({ recovering: false });
  const shopper = await aShopper(first.base);
  const checkoutBody = { shippingAddress: texas, notes: "ring twice" };
  const key = { "idempotency-key": `checkout-${crypto.randomUUID()}` };

  // Stripe makes the intent; its answer waits while the shop dies.
  const held = stripe.holdNext("/v1/payment_intents");
  const dying = shopper.call("POST", "/cart/checkout", checkoutBody, key).catch(() => "no answer");
  await held.ran;
  await kill(first.server);
  held.release();
  expect(await dying).toBe("no answer");
  const orderId = await shopper.onlyOrder();
  const order = await orderRow(orderId);
  expect(order).toMatchObject({ status: "PENDING", payment_status: "PENDING", stripe_payment_intent_id: null });
  const [intent] = intentsOf(orderId);

  const second = await startShop({ recovering: true });
  await eventually(async () => expect((await orderRow(orderId)).stripe_payment_intent_id).toBe(intent!.id), 5_000);
  expect(intentsOf(orderId)).toHaveLength(1);

  const replay = await shopper.call("POST", "/cart/checkout", checkoutBody, key, second.base);
  expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
  expect(replay.body).toEqual({ clientSecret: intent!.client_secret, orderId, orderNumber: order.order_number, amount: order.total_cents / 100 });

  const paid = await shopper.call("POST", "/payment", { orderId, paymentMethodId: "pm_card_visa" }, {}, second.base);
  expect([paid.status, paid.body.success, paid.body.order.paymentStatus]).toEqual([200, true, "PAID"]);
  expect([chargesOf(intent!.id), confirmationsOf(intent!.id)]).toEqual([1, 1]);
  await kill(second.server);
}, 30_000);

test("killed while Stripe confirms a payment: within a housekeeping pass of the restart the order is PAID from Stripe's own state, charged once, and a retry of the payment is 'already paid' with no second charge", async () => {
  const first = await startShop({ recovering: false });
  const shopper = await aShopper(first.base);
  const placed = await shopper.call("POST", "/cart/checkout", { shippingAddress: texas });
  expect(placed.status).toBe(200);
  const orderId: string = placed.body.orderId;
  const intentId = (await orderRow(orderId)).stripe_payment_intent_id!;

  // Stripe confirms (and charges); its answer waits while the shop dies.
  const held = stripe.holdNext("/confirm");
  const dying = shopper.call("POST", "/payment", { orderId, paymentMethodId: "pm_card_visa" }).catch(() => "no answer");
  await held.ran;
  await kill(first.server);
  held.release();
  expect(await dying).toBe("no answer");
  expect(await orderRow(orderId)).toMatchObject({ status: "PENDING", payment_status: "PENDING", payment_started_at: expect.any(Date) });
  expect(stripe.intents.get(intentId)?.status).toBe("succeeded");

  const second = await startShop({ recovering: true });
  await eventually(async () => expect(await orderRow(orderId)).toMatchObject({ status: "CONFIRMED", payment_status: "PAID", payment_started_at: null }), 5_000);
  const retry = await shopper.call("POST", "/payment", { orderId, paymentMethodId: "pm_card_visa" }, {}, second.base);
  expect([retry.status, retry.body.error]).toEqual([400, "Order has already been paid"]);
  expect([chargesOf(intentId), confirmationsOf(intentId)]).toEqual([1, 1]);
  const order = await shopper.call("GET", `/orders/${orderId}`, undefined, {}, second.base);
  expect(order.body).toMatchObject({ status: "CONFIRMED", paymentStatus: "PAID", stripePaymentIntentId: intentId });
  await kill(second.server);
}, 30_000);

test("killed between the fake processor's 3-D Secure answer and the order taking it: the card is charged, and once restarted the fake delivers its event again, so the order is PAID, once (found by an attack)", async () => {
  const first = await startShop({ recovering: false, fake: true, waitsOnLocks: true });
  const shopper = await aShopper(first.base);
  const placed = await shopper.call("POST", "/cart/checkout", { shippingAddress: texas });
  const orderId: string = placed.body.orderId;
  const challenged = await shopper.call("POST", "/payment", { orderId, paymentMethodId: "pm_card_threeDSecure2Required" });
  expect(challenged.body.paymentIntent.status).toBe("requires_action");
  const intentId: string = challenged.body.paymentIntent.id;

  // The order's row held, so the shop takes the answer's event only after the intent has succeeded; it dies waiting.
  const holder = new Client({ connectionString: database.url });
  await holder.connect();
  try {
    await holder.query("begin");
    await holder.query("select id from orders where id = $1 for update", [orderId]);
    const dying = shopper.call("POST", `/fake-processor/challenge/${intentId}/authorize`).catch(() => "no answer");
    await eventually(async () => {
      const { rows } = await holder.query("select count(*)::int as n from fake_processor_events where intent->>'id' = $1", [intentId]);
      expect(rows[0].n).toBe(1);
    }, 5_000);
    await kill(first.server);
    expect(await dying).toBe("no answer");
  } finally {
    await holder.query("rollback");
    await holder.end();
  }
  const charged = await sql<{ status: string }>`select intent->>'status' as status from fake_processor_intents where id = ${intentId}`.execute(database.db);
  expect(charged.rows).toEqual([{ status: "succeeded" }]);
  expect(await orderRow(orderId)).toMatchObject({ status: "PENDING", payment_status: "PENDING" });

  const second = await startShop({ recovering: true, fake: true });
  const undelivered = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from fake_processor_events where intent->>'id' = ${intentId}`.execute(database.db)).rows[0]!.n;
  // Taken by the order first, then let go by the fake: both, within a housekeeping pass or two.
  await eventually(async () => {
    expect(await orderRow(orderId)).toMatchObject({ status: "CONFIRMED", payment_status: "PAID" });
    expect(await undelivered()).toBe(0);
  }, 10_000);
  const applied = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'webhook.stripe' and entity_id = ${orderId}`.execute(
    database.db,
  );
  expect(applied.rows).toEqual([{ n: 1 }]);
  await kill(second.server);
}, 30_000);
