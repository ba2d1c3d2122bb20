// Shoppers each adding to their cart and then checking out, from their own process, over
// keep-alive connections. Run by bench/checkout.ts (and bench/payment.ts) under Node.js:
//   node bench/shopper-load.mjs <config.json>   → JSON summary on stdout
// Each connection plays its own shoppers in turn, so no two requests ever touch one cart at once.
// A cycle is: POST /api/cart, POST /api/cart/checkout, and, with `pay`, POST /api/payment.
// With several `bases` (instances of the shop), connection i talks to bases[i % bases.length]. With
// `soldOutIsAnswer`, "Insufficient inventory" (400) is counted as a refusal, not a failure.
import { readFileSync } from "node:fs";
import http from "node:http";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const bases = (config.bases ?? [config.base]).map((base) => new URL(base));
const agent = new http.Agent({ keepAlive: true, maxSockets: config.connections });

function request(base, method, path, cookie, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: { cookie, ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode, body: text, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

const latencies = { add: [], checkout: [], payment: [] };
const counts = { orders: 0, paid: 0, failures: 0, refused: 0 };
// Over the whole run, warm-up included: what the CPU times the caller takes over the whole run are divided by.
const all = { orders: 0, paid: 0 };
const failures = {};
let measuring = false;
let running = true;

function note(kind, response, expected = 200) {
  if (config.soldOutIsAnswer && response.status === 400 && response.body.includes('"Insufficient inventory"')) {
    counts.refused++;
    return false;
  }
  if (response.status !== expected) {
    counts.failures++;
    const key = `${kind} ${response.status}`;
    failures[key] ??= response.body.slice(0, 200);
    return false;
  }
  if (measuring) latencies[kind].push(response.ms);
  return true;
}

async function shopper(connection) {
  const base = bases[connection % bases.length];
  for (let turn = 0; running; turn++) {
    const cookie = config.cookies[(connection + turn * config.connections) % config.cookies.length];
    const productId = config.productIds[turn % config.productIds.length];
    if (!note("add", await request(base, "POST", "/api/cart", cookie, { productId, quantity: 1 }))) continue;
    const checkout = await request(base, "POST", "/api/cart/checkout", cookie, { shippingAddress: config.address });
    if (!note("checkout", checkout)) continue;
    all.orders++;
    if (measuring) counts.orders++;
    if (!config.pay) continue;
    const paid = await request(base, "POST", "/api/payment", cookie, { orderId: JSON.parse(checkout.body).orderId, paymentMethodId: "pm_card_visa" });
    if (!note("payment", paid)) continue;
    all.paid++;
    if (measuring) counts.paid++;
  }
}

const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
};

const shoppers = Array.from({ length: config.connections }, (_, i) => shopper(i));
await new Promise((resolve) => setTimeout(resolve, config.warmupSeconds * 1000));
measuring = true;
const started = Date.now();
await new Promise((resolve) => setTimeout(resolve, config.seconds * 1000));
measuring = false;
const elapsed = (Date.now() - started) / 1000;
running = false;
await Promise.all(shoppers);
agent.destroy();

const summary = (values) => ({ count: values.length, p50: percentile(values, 50), p99: percentile(values, 99) });
process.stdout.write(
  JSON.stringify({
    seconds: elapsed,
    ordersPerSecond: Math.round(counts.orders / elapsed),
    paidPerSecond: Math.round(counts.paid / elapsed),
    add: summary(latencies.add),
    checkout: summary(latencies.checkout),
    payment: summary(latencies.payment),
    failures: counts.failures,
    refused: counts.refused,
    failureSamples: failures,
    all,
  }),
);
