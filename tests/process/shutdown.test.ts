import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { type AddressInfo, type Socket, createServer } from "node:net";
import { eventually } from "../support/eventually.ts";
import { type TestDatabase, createSeededTestDatabase, createTestDatabase } from "../support/postgres.ts";
import { processes, waitForStart } from "../support/processes.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

const children = processes();
let stripe: StripeTestServer;
// The shop's shutdown is the subject, not its database: PostgreSQL, whose start costs nothing.
let shop: TestDatabase;
beforeAll(async () => {
  [stripe, shop] = await Promise.all([startStripeTestServer(), createSeededTestDatabase()]);
});
/** Servers of a test's own, closed after the file. */
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await children.stopAll();
  await Promise.all(closers.map((close) => close()));
  stripe.close();
  await shop.drop();
});

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

test("SIGTERM during a slow request: no new connection is taken, the request in flight finishes, and the process exits 0", async () => {
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: shop.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
  });
  const { port } = await waitForStart(server);
  const base = `http://127.0.0.1:${port}/api`;
  const json = (method: string, path: string, body: unknown, cookie = "") =>
    fetch(`${base}${path}`, { method, headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });

  await json("POST", "/auth/register", { email: "pat@example.com", password: "sauce lover 99" });
  const signedIn = await json("POST", "/auth/callback/credentials", { email: "pat@example.com", password: "sauce lover 99" });
  const cookie = signedIn.headers.getSetCookie()[0]!.split(";")[0]!;
  const { data: products } = (await (await fetch(`${base}/products?limit=1`)).json()) as { data: Array<{ id: string }> };
  await json("POST", "/cart", { productId: products[0]!.id, quantity: 1 }, cookie);
  const { orderId } = (await (await json("POST", "/cart/checkout", { shippingAddress: texas }, cookie)).json()) as { orderId: string };

  // The payment waits on Stripe while the shop is told to stop.
  const held = stripe.holdNext("/confirm");
  const paying = json("POST", "/payment", { orderId, paymentMethodId: "pm_card_visa" }, cookie);
  await held.ran;
  server.kill("SIGTERM");
  try {
    await eventually(
      async () =>
        expect(
          await fetch(`${base}/health`).then(
            () => "served",
            (e: { code?: string }) => e.code,
          ),
        ).toBe("ECONNREFUSED"),
      5_000,
    );
  } finally {
    held.release();
  }
  const paid = await paying;
  expect(paid.status).toBe(200);
  expect(((await paid.json()) as { success: boolean }).success).toBe(true);
  expect(await server.exited).toBe(0);
}, 30_000);

/** A mail server that takes connections and says nothing, not even a greeting (nodemailer would wait 10 s for one). */
async function silentMailServer() {
  const connected = Promise.withResolvers<void>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    connected.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connected: connected.promise,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test("a request and a mail send still running when the drain time is up are cut (a mail server that never answers held every stop to exit 1: found by an attack), and the process still exits 0", async () => {
  const mail = await silentMailServer();
  closers.push(mail.close);
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: shop.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
    SHUTDOWN_DRAIN_SECONDS: "1",
    SMTP_URL: mail.url,
    MAIL_FROM: "shop@example.com",
  });
  const { port } = await waitForStart(server);
  const base = `http://127.0.0.1:${port}/api`;
  const json = (path: string, body: unknown, cookie = "") =>
    fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });
  await json("/auth/register", { email: "sam@example.com", password: "sauce lover 99" });
  const cookie = (await json("/auth/callback/credentials", { email: "sam@example.com", password: "sauce lover 99" })).headers.getSetCookie()[0]!.split(";")[0]!;
  const { data: products } = (await (await fetch(`${base}/products?limit=1`)).json()) as { data: Array<{ id: string }> };
  await json("/cart", { productId: products[0]!.id, quantity: 1 }, cookie);
  const { orderId } = (await (await json("/cart/checkout", { shippingAddress: texas }, cookie)).json()) as { orderId: string };

  // Stripe never answers while the shop stops.
  const held = stripe.holdNext("/confirm");
  const paying = json("/payment", { orderId, paymentMethodId: "pm_card_visa" }, cookie).then(
    (res) => res.status,
    () => "cut",
  );
  await held.ran;
  // The welcome mail's send waits on the silent server too.
  await mail.connected;
  server.kill("SIGTERM");
  try {
    expect(await server.exited).toBe(0);
    expect(await paying).toBe("cut");
  } finally {
    held.release();
  }
}, 30_000);

test("a clean-up that hangs (a request cut while it waits on a row lock, with no limit on the wait, keeps its database connection) does not keep the process: it exits 1 five seconds after the drain", async () => {
  const database = await createTestDatabase();
  // The shop waits 2 s at most for a lock; an operator may lift the limit (PGOPTIONS), and then a
  // wait on a lock held elsewhere is a clean-up that never ends.
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    SHUTDOWN_DRAIN_SECONDS: "1",
    RATE_LIMIT_MAX: "0",
    PGOPTIONS: "-c lock_timeout=0",
  });
  let release = () => {};
  try {
    const { port } = await waitForStart(server);
    const base = `http://127.0.0.1:${port}/api`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("/auth/register", { email: "lee@example.com", password: "sauce lover 99" })).status).toBe(201);
    // Someone else holds the account's row: the sign-in waits on it, holding a pooled connection.
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const rowLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = database.db.transaction().execute(async (trx) => {
      await sql`select id from users where email = 'lee@example.com' for update`.execute(trx);
      locked();
      await released;
    });
    // The row is held before the sign-in asks for it: otherwise a fast sign-in could pass first
    // (a transaction that failed instead fails the test here).
    await Promise.race([rowLocked, holding]);
    const signingIn = post("/auth/callback/credentials", { email: "lee@example.com", password: "sauce lover 99" }).then(
      (res) => res.status,
      () => "cut",
    );
    await eventually(async () => {
      const waiting = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
      expect(waiting.rows[0]?.n).toBe(1);
      // A loaded machine (the suite runs four files at once) may take its time to get there.
    }, 20_000);
    server.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(await signingIn).toBe("cut");
    release();
    await holding;
  } finally {
    release();
    await database.drop();
  }
}, 45_000);
