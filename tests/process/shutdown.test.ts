import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually } from "../support/eventually.ts";
import { processes, waitForStart } from "../support/processes.ts";
import { type StripeTestServer, startStripeTestServer } from "../support/stripe-server.ts";

const children = processes();
let stripe: StripeTestServer;
beforeAll(async () => {
  stripe = await startStripeTestServer();
});
afterAll(async () => {
  await children.stopAll();
  stripe.close();
});

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

test("SIGTERM during a slow request: no new connection is taken, the request in flight finishes, and the process exits 0", async () => {
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: "pglite://memory",
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
    await eventually(async () => expect(await fetch(`${base}/health`).then(() => "served", (e: { code?: string }) => e.code)).toBe("ECONNREFUSED"), 5_000);
  } finally {
    held.release();
  }
  const paid = await paying;
  expect(paid.status).toBe(200);
  expect(((await paid.json()) as { success: boolean }).success).toBe(true);
  expect(await server.exited).toBe(0);
}, 30_000);
