// Mixed shop traffic for bench/soak.ts, from its own process (Node.js):
//   node bench/soak-load.mjs <config.json>   → JSON summary on stdout
// An action is, at random: 70 % browsing (a product, a page of the catalog, a search), 20 % the cart
// (adding 1 of a product, or reading it), 10 % adding, checking out and paying with pm_card_visa.
// Each action is one shopper's, and a shopper has one action at a time, so no request races
// another of the same cart. `rate` null: closed loop, `workers` actions at once back to back
// (capacity); a number: open loop, that many actions a second started on schedule, whatever the
// answers take. Latencies and errors are kept per minute from the start.
import { readFileSync } from "node:fs";
import http from "node:http";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const base = new URL(config.base);
const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

function request(method, path, cookie, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
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
    req.on("error", (error) => resolve({ status: 0, body: String(error), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    if (payload) req.write(payload);
    req.end();
  });
}

const started = Date.now();
const minutes = [];
const errorSamples = {};
const kinds = { browse: 0, cart: 0, checkout: 0 };

function note(name, response) {
  const minute = Math.floor((Date.now() - started) / 60_000);
  minutes[minute] ??= { latencies: [], errors: 0 };
  minutes[minute].latencies.push(response.ms);
  if (response.status >= 200 && response.status < 300) return true;
  minutes[minute].errors++;
  errorSamples[`${name} ${response.status}`] ??= response.body.slice(0, 200);
  return false;
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
const idle = config.cookies.slice();

async function action() {
  const cookie = idle.pop();
  if (cookie === undefined) return false;
  try {
    const roll = Math.random();
    const productId = pick(config.productIds);
    if (roll < 0.7) {
      kinds.browse++;
      const path = pick([`/api/products/${productId}`, "/api/products", "/api/products?search=pepper&sort=price_asc"]);
      note("GET catalog", await request("GET", path, cookie));
    } else if (roll < 0.9) {
      kinds.cart++;
      if (roll < 0.85) note("POST /api/cart", await request("POST", "/api/cart", cookie, { productId, quantity: 1 }));
      else note("GET /api/cart", await request("GET", "/api/cart", cookie));
    } else {
      kinds.checkout++;
      if (!note("POST /api/cart", await request("POST", "/api/cart", cookie, { productId, quantity: 1 }))) return true;
      const checkout = await request("POST", "/api/cart/checkout", cookie, { shippingAddress: config.address });
      if (!note("POST /api/cart/checkout", checkout)) return true;
      const body = { orderId: JSON.parse(checkout.body).orderId, paymentMethodId: "pm_card_visa" };
      note("POST /api/payment", await request("POST", "/api/payment", cookie, body));
    }
    return true;
  } finally {
    idle.unshift(cookie);
  }
}

const until = started + config.seconds * 1000;
let actions = 0;
let skipped = 0;
if (config.rate === null) {
  const worker = async () => {
    while (Date.now() < until) if (await action()) actions++;
  };
  await Promise.all(Array.from({ length: config.workers }, worker));
} else {
  // On schedule: each 10 ms tick starts the actions due by then; one that finds no idle shopper is skipped.
  const inFlight = new Set();
  let due = 0;
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = Date.now();
      for (const by = Math.floor(((Math.min(now, until) - started) / 1000) * config.rate); due < by; due++) {
        if (idle.length === 0) {
          skipped++;
          continue;
        }
        const run = action();
        inFlight.add(run);
        run.then(() => inFlight.delete(run));
        actions++;
      }
      if (now >= until) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  await Promise.all(inFlight);
}
agent.destroy();

const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
};
process.stdout.write(
  JSON.stringify({
    seconds: (Date.now() - started) / 1000,
    actionsPerSecond: Math.round((actions / config.seconds) * 10) / 10,
    actions,
    skipped,
    kinds,
    minutes: minutes.map((m) => ({ requests: m.latencies.length, p50: percentile(m.latencies, 50), p99: percentile(m.latencies, 99), errors: m.errors })),
    errorSamples,
  }),
);
