import { afterAll, beforeAll, expect, test } from "bun:test";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { outcome, processes, waitForStart } from "../support/processes.ts";
import { signedByEasyPost } from "../support/webhook-signers.ts";

// A shop on PostgreSQL with METRICS_PORT, sent known traffic, then scraped as Prometheus would.
const children = processes();
let database: TestDatabase;
let api: string;
let metricsUrl: string;
const LIMIT = 5;
const EASYPOST_SECRET = "easypost-metrics-secret";
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

beforeAll(async () => {
  database = await createTestDatabase();
  const started = await waitForStart(
    children.spawn([process.execPath, "src/main.ts"], {
      PORT: "0",
      METRICS_PORT: "0",
      DATABASE_URL: database.url,
      TRUST_PROXY: "true",
      RATE_LIMIT_MAX: String(LIMIT),
      EASYPOST_WEBHOOK_SECRET: EASYPOST_SECRET,
    }),
  );
  api = `http://127.0.0.1:${started.port}`;
  metricsUrl = `http://127.0.0.1:${(started as { metricsPort?: number }).metricsPort}/metrics`;
}, 30_000);
afterAll(async () => {
  await children.stopAll();
  await database.drop();
});

let clients = 0;
/** A client of its own address (the rate limit counts each apart), keeping its session cookie. */
function aClient() {
  const ip = `10.0.0.${++clients}`;
  let cookie = "";
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { "x-forwarded-for": ip, cookie, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const set = res.headers.getSetCookie()[0]?.split(";")[0];
    if (set) cookie = set;
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
}

async function aShopper() {
  const call = aClient();
  const email = `shopper-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await call("POST", "/api/auth/register", { email, password: "sauce lover 99" })).status).toBe(201);
  expect((await call("POST", "/api/auth/callback/credentials", { email, password: "sauce lover 99" })).status).toBe(200);
  return call;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, the samples only. */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [, name, labels = "", value] = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      return { name: name!, labels: Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v])), value: Number(value) };
    });
}

async function scrape() {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return parse(await res.text());
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

test("after known traffic, /metrics counts it by route pattern, never by raw path, with every outcome §14 lists", async () => {
  const deps = createPgDeps(database.db);
  const [habanero, verde, scarce] = [aProduct(), aProduct(), aProduct({ inventory: 1 })];
  for (const product of [habanero, verde, scarce]) await deps.repos.products.create(product);
  const unknownId = "z12345678901234567890123";

  const browse = aClient();
  expect((await browse("GET", "/api/products")).status).toBe(200);
  expect((await browse("GET", `/api/products/${habanero.id}`)).status).toBe(200);
  expect((await browse("GET", `/api/products/${verde.slug}`)).status).toBe(200);
  expect((await browse("GET", `/api/products/${unknownId}`)).status).toBe(404);
  expect((await browse("GET", "/api/no-such-thing/42")).status).toBe(404);
  const limited = aClient();
  const statuses = [];
  for (let i = 0; i <= LIMIT; i++) statuses.push((await limited("GET", "/api/locations")).status);
  expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);

  const [first, second] = [await aShopper(), await aShopper()];
  for (const shopper of [first, second]) expect((await shopper("POST", "/api/cart", { productId: scarce.id, quantity: 1 })).status).toBe(200);
  const placed = await first("POST", "/api/cart/checkout", { shippingAddress: texas });
  expect(placed.status).toBe(200);
  expect((await second("POST", "/api/cart/checkout", { shippingAddress: texas })).body.error).toBe("Insufficient inventory");
  expect((await first("POST", "/api/payment", { orderId: placed.body.orderId, paymentMethodId: "pm_card_visa" })).body.success).toBe(true);

  const tracker = { id: "evt_metrics_1", description: "tracker.updated", result: { tracking_code: "NO_SUCH_PARCEL", status: "delivered" } };
  const delivery = signedByEasyPost(tracker, EASYPOST_SECRET);
  expect((await browse("POST", "/api/webhooks/easypost", delivery.body, delivery.headers)).status).toBe(200);
  const forged = signedByEasyPost(tracker, "not-the-secret");
  expect((await browse("POST", "/api/webhooks/easypost", forged.body, forged.headers)).status).toBe(400);

  // Each request is counted once its answer has gone: the last may land a moment after the client
  // has it, and on a loaded machine so may any other.
  const requests = (samples: Sample[], route: string, status: number, method = "GET") =>
    sampleValue(samples, "storefront_http_requests_total", { method, route, status: String(status) });
  const samples = await eventually(async () => {
    const now = await scrape();
    expect({
      products: requests(now, "/api/products", 200),
      oneProduct: requests(now, "/api/products/:id", 200),
      unknownProduct: requests(now, "/api/products/:id", 404),
      unmatched: requests(now, "unmatched", 404),
      locations: requests(now, "/api/locations", 200),
      limited: requests(now, "/api/locations", 429),
      placed: requests(now, "/api/cart/checkout", 200, "POST"),
      refused: requests(now, "/api/cart/checkout", 400, "POST"),
      paid: requests(now, "/api/payment", 200, "POST"),
      webhook: requests(now, "/api/webhooks/easypost", 200, "POST"),
      forged: requests(now, "/api/webhooks/easypost", 400, "POST"),
    }).toEqual({
      products: 1,
      oneProduct: 2,
      unknownProduct: 1,
      unmatched: 1,
      locations: 5,
      limited: 1,
      placed: 1,
      refused: 1,
      paid: 1,
      webhook: 1,
      forged: 1,
    });
    return now;
  }, 5_000);
  const timed = { method: "GET", route: "/api/products/:id", status: "200" };
  expect(sampleValue(samples, "storefront_http_request_duration_seconds_count", timed)).toBe(2);
  expect(sampleValue(samples, "storefront_http_request_duration_seconds_bucket", { ...timed, le: "+Inf" })).toBe(2);
  expect(sampleValue(samples, "storefront_http_request_duration_seconds_sum", timed)).toBeGreaterThan(0);

  // Ids, slugs and unknown paths are never labels: the series stay as few as the routes.
  const labelValues = samples.flatMap((s) => Object.values(s.labels));
  for (const raw of [habanero.id, verde.slug, unknownId, scarce.id, placed.body.orderId, "no-such-thing", "NO_SUCH_PARCEL"]) {
    expect({ raw, labelled: labelValues.some((value) => value.includes(raw)) }).toEqual({ raw, labelled: false });
  }
  expect(new Set(samples.filter((s) => s.name === "storefront_http_requests_total").map((s) => s.labels.route))).toEqual(
    new Set([
      "/api/products",
      "/api/products/:id",
      "unmatched",
      "/api/locations",
      "/api/auth/register",
      "/api/auth/callback/credentials",
      "/api/cart",
      "/api/cart/checkout",
      "/api/payment",
      "/api/webhooks/easypost",
    ]),
  );

  const outcomes = (name: string, label = "outcome") =>
    Object.fromEntries(samples.filter((s) => s.name === name && s.value > 0).map((s) => [Object.values(s.labels).join(" ") || label, s.value]));
  expect(outcomes("storefront_checkouts_total")).toEqual({ placed: 1, insufficient_inventory: 1 });
  expect(sampleValue(samples, "storefront_checkouts_total", { outcome: "tax_failed" })).toBe(0);
  expect(outcomes("storefront_payments_total")).toEqual({ paid: 1 });
  expect(outcomes("storefront_webhooks_total")).toEqual({ "easypost not_found": 1, "easypost rejected": 1 });
  // Every provider's series are there from the start, at 0, so increase() sees its first delivery.
  expect(sampleValue(samples, "storefront_webhooks_total", { provider: "stripe", outcome: "rejected" })).toBe(0);
  expect(outcomes("storefront_rate_limit_refusals_total")).toEqual({ endpoint: 1 });
  expect(outcomes("storefront_password_check_refusals_total")).toEqual({});
  expect(outcomes("storefront_rate_limit_store")).toEqual({ memory: 1 });
  expect(sampleValue(samples, "storefront_db_connections_max")).toBe(10);
  expect(sampleValue(samples, "storefront_db_connections_in_use")).toBeWithin(0, 11);
  expect(sampleValue(samples, "storefront_db_connections_waiting")).toBe(0);
  expect(sampleValue(samples, "storefront_mail_outbox_messages", { status: "failed" })).toBe(0);
  // Two welcome mails, sent by the worker every 2 s: waiting, or gone.
  expect(sampleValue(samples, "storefront_mail_outbox_messages", { status: "pending" })).toBeWithin(0, 3);
  // Process metrics from prom-client.
  expect(sampleValue(samples, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
  expect(sampleValue(samples, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  // Housekeeping runs at start, then every minute.
  await eventually(
    async () => expect(sampleValue(await scrape(), "storefront_housekeeping_runs_total", { outcome: "done" })).toBeGreaterThanOrEqual(1),
    10_000,
  );
}, 30_000);

test("/metrics is on METRICS_PORT only: the API's port has none, and the metrics port serves nothing else", async () => {
  expect((await fetch(`${api}/api/metrics`)).status).toBe(404);
  // Outside /api the API's port serves the storefront's page (it routes on the client), never the metrics.
  const page = await fetch(`${api}/metrics`);
  expect(page.headers.get("content-type")).toStartWith("text/html");
  expect(await page.text()).not.toContain("# TYPE storefront_");
  const origin = new URL(metricsUrl).origin;
  expect((await fetch(`${origin}/api/products`)).status).toBe(404);
  expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(405);
  // Scraping is never rate limited, nor counted as a request to the shop.
  for (let i = 0; i <= LIMIT; i++) expect((await fetch(metricsUrl)).status).toBe(200);
  expect((await scrape()).some((s) => s.labels.route === "/metrics")).toBe(false);
}, 20_000);

test("a METRICS_PORT already in use stops the start before anything is opened: one line naming the port, exit 1", async () => {
  const port = new URL(metricsUrl).port;
  const second = await outcome(children.spawn([process.execPath, "src/main.ts"], { PORT: "0", METRICS_PORT: port, DATABASE_URL: database.url }));
  expect(second.code).toBe(1);
  const errors = second.output.split("\n").filter((line) => line.includes('"level":"error"'));
  expect(errors.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ event: "server.start_failed", error: `Port ${port} is already in use` })]);
  expect((await fetch(metricsUrl)).status).toBe(200);
}, 20_000);
