// Shoppers adding to their cart and checking out (and paying), on PostgreSQL with the built-in fake
// processor, loaded from a separate Node.js process: what bench/checkout.ts and bench/payment.ts run.
import { Client } from "pg";
import { startSession } from "../src/application/auth/start-session.ts";
import { makeUseCases } from "../src/application/use-cases.ts";
import { createSessionTokens } from "../src/adapters/http/session.ts";
import { silentLogger } from "../src/adapters/log.ts";
import { buildRuntime } from "../src/compose.ts";
import { commonPasswords } from "../src/adapters/crypto/common-passwords.ts";
import { loadConfig } from "../src/config.ts";
import { aUser } from "../tests/support/builders.ts";
import { startStripeTestServer } from "../tests/support/stripe-server.ts";
import { againstProbe, cpuMeter, prepareDatabase, shopperLoad, startServer, watchMemory, writeProbe } from "./support.ts";

export const SECRET = "bench-secret-bench-secret-bench-secret-42";
const SHOPPERS = 400;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const address = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

// The SQL one add and one checkout send, counted in this process at the pg client (the server sends
// the same): patched before any connection exists, and counting only while asked to.
const sent: string[] = [];
let counting = false;
const query = Client.prototype.query;
Client.prototype.query = function (this: Client, ...args: unknown[]) {
  const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
  if (counting) sent.push((text ?? "").replace(/\s+/g, " ").trim());
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/**
 * A fresh bench database with the demo catalog, every product's stock set to `inventory`, and
 * `count` shoppers signed in (their session cookies minted with SECRET, so no bcrypt runs). The
 * runtime stays open for the caller, who closes it.
 */
export async function shopWithShoppers(count: number, inventory: number) {
  const databaseUrl = await prepareDatabase();
  const config = loadConfig({ DATABASE_URL: databaseUrl }, commonPasswords);
  const runtime = buildRuntime(config, silentLogger);
  await runtime.db.updateTable("products").set({ inventory }).execute();
  const useCases = makeUseCases(runtime.deps, { publicUrl: config.publicUrl });
  const products = (await useCases.listProducts({ sort: "newest", page: 1, limit: 100 })).items;
  const tokens = createSessionTokens(SECRET, runtime.deps.clock);

  async function shopper() {
    const user = { ...aUser(), passwordHash: null };
    await runtime.deps.uow.transaction((tx) => tx.users.create(user));
    const session = await runtime.deps.uow.transaction((tx) => startSession(tx, runtime.deps, user));
    return { user, cookie: `storefront.session-token=${await tokens.issue(session)}` };
  }
  const shoppers = await Promise.all(Array.from({ length: count }, shopper));
  return { databaseUrl, runtime, useCases, products, shoppers };
}

/** Runs the load and prints what it measured; returns the summary for the caller's last line. */
export async function runShopperBench({ pay }: { pay: boolean }) {
  // Plenty of stock: the bench measures orders, not refusals.
  const { databaseUrl, runtime, useCases, products, shoppers } = await shopWithShoppers(SHOPPERS, 10_000_000);

  const probe = shoppers[0]!.user;
  const origin = { ipAddress: "127.0.0.1", userAgent: "bench" };
  counting = true;
  await useCases.addToCart(probe.id, { productId: products[0]!.id, quantity: 1 }, origin);
  const addStatements = sent.length;
  const placed = await useCases.placeOrder(probe.id, { cartItemIds: null, shippingAddress: address }, origin);
  const checkoutStatements = sent.slice(addStatements);
  await useCases.payOrder(probe.id, { orderId: placed.orderId, paymentMethodId: "pm_card_visa" }, origin);
  counting = false;
  const paymentStatements = sent.slice(addStatements + checkoutStatements.length);
  await runtime.close();

  // BENCH_STRIPE_LATENCY_MS: pay through the Stripe adapter against the Stripe-shaped test server,
  // each of its answers that late, instead of the built-in fake (which answers at once).
  const latencyMs = Number(process.env.BENCH_STRIPE_LATENCY_MS ?? 0);
  const stripe = latencyMs > 0 ? await startStripeTestServer({ latencyMs }) : null;
  const processor: Record<string, string> = stripe ? { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_API_BASE: stripe.url } : {};
  const probeBefore = writeProbe();
  // Without paying, each shopper's orders stay unpaid: the limit is raised so the checkout bench measures orders, not 409s.
  const server = await startServer({ DATABASE_URL: databaseUrl, AUTH_SECRET: SECRET, MAX_UNPAID_ORDERS: "1000", ...processor });
  const memory = watchMemory(server.pid);
  let stopped = false;
  try {
    const cpu = await cpuMeter([server.pid]);
    const result = await shopperLoad({
      base: server.base,
      connections: CONNECTIONS,
      seconds: 10,
      warmupSeconds: 3,
      cookies: shoppers.map((s) => s.cookie),
      productIds: products.map((p) => p.id),
      address,
      pay,
    });
    const used = await cpu.stop();
    const peakRss = memory.stop();
    server.stop();
    stopped = true;
    const probeAfter = writeProbe();
    console.log(`SQL statements per add to cart: ${addStatements}; per checkout: ${checkoutStatements.length}; per payment: ${paymentStatements.length}`);
    const steps = [["add to cart", sent.slice(0, addStatements)], ["checkout", checkoutStatements], ...(pay ? [["payment", paymentStatements]] : [])] as const;
    for (const [step, statements] of steps) {
      console.log(`${step}:`);
      for (const statement of statements) console.log(`  ${statement.slice(0, 150)}`);
    }
    console.log(`\n| step | count | p50 ms | p99 ms |\n|---|---:|---:|---:|`);
    console.log(`| POST /api/cart | ${result.add.count} | ${result.add.p50} | ${result.add.p99} |`);
    console.log(`| POST /api/cart/checkout | ${result.checkout.count} | ${result.checkout.p50} | ${result.checkout.p99} |`);
    if (pay) console.log(`| POST /api/payment | ${result.payment.count} | ${result.payment.p50} | ${result.payment.p99} |`);
    console.log(
      `\n${CONNECTIONS} connections, ${SHOPPERS} shoppers; failures: ${result.failures} ${JSON.stringify(result.failureSamples)}; server peak RSS ${peakRss} MB`,
    );
    // Each order (paid order) of the run, warm-up included, cost the server, PostgreSQL and the load generator this much CPU.
    const per = pay ? result.all.paid : result.all.orders;
    const ms = (total: number) => (per ? (total / per).toFixed(2) : "?");
    console.log(
      `CPU per ${pay ? "paid order" : "order"}: server ${ms(used.serverMs)} ms, PostgreSQL ${ms(used.databaseMs)} ms, load generator ${ms(result.loadGeneratorMs)} ms (${per} in ${Math.round(result.seconds + 3)} s)`,
    );
    if (stripe) console.log(`processor: the Stripe adapter on the test server, ${latencyMs} ms an answer`);
    const figure = pay ? result.paidPerSecond : result.ordersPerSecond;
    return { ...result, peakRss, probe: againstProbe(figure, probeBefore, probeAfter) };
  } finally {
    if (!stopped) server.stop();
    stripe?.close();
  }
}
