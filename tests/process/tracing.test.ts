import { hostname } from "node:os";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { type Server, processes } from "../support/processes.ts";

// Decisions §14: with OTEL_EXPORTER_OTLP_ENDPOINT set, a real shop (its own process, on PostgreSQL,
// paying through the built-in fake processor) sends its spans over OTLP/HTTP to a collector: here a
// stand-in that decodes what arrives. The exporter sends OTLP's JSON encoding (protobuf's JSON
// mapping), read with JSON.parse. Spans are batched; the shop's shutdown sends what is left, so the
// test stops the shop and then reads, with nothing to wait for by the clock.

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
}
interface ExportTraceServiceRequest {
  resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: AnyValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

/** OTLP's SpanKind. */
const SERVER = 2;
const CLIENT = 3;

interface ReceivedSpan {
  /** The resource's: which service, on which host. */
  service: unknown;
  host: unknown;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const plain = (value: AnyValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue));
const attributesOf = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

const received: ReceivedSpan[] = [];
const collector = Bun.serve({
  port: 0,
  async fetch(request) {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/traces") return new Response(null, { status: 404 });
    const { resourceSpans } = (await request.json()) as ExportTraceServiceRequest;
    for (const { resource, scopeSpans } of resourceSpans) {
      const { "service.name": service, "host.name": host } = attributesOf(resource.attributes);
      for (const span of scopeSpans.flatMap((scope) => scope.spans)) {
        received.push({ ...span, service, host, parentSpanId: span.parentSpanId ?? "", attributes: attributesOf(span.attributes) });
      }
    }
    return Response.json({});
  },
});

const children = processes();
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await children.stopAll();
  collector.stop(true);
  await database.drop();
});

/** The shop's JSON log, read as it comes (the whole of it, up to the process's exit). */
function logOf(server: Server) {
  const lines: Record<string, unknown>[] = [];
  const decoder = new TextDecoder();
  const done = (async () => {
    let buffered = "";
    for await (const chunk of server.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      const complete = buffered.split("\n");
      buffered = complete.pop() ?? "";
      for (const line of complete) if (line.startsWith("{")) lines.push(JSON.parse(line));
    }
  })();
  const started = () =>
    eventually(() => {
      const entry = lines.find((line) => line.event === "server.started");
      if (!entry) throw new Error("the shop has not started");
      return entry as { port: number; adapters: Record<string, string> };
    }, 20_000);
  return { lines, done, started };
}

async function startShop(env: Record<string, string>) {
  // Whatever the runner's environment says, the test says where spans go (or that they go nowhere).
  const server = children.spawn([process.execPath, "src/main.ts"], {
    PORT: "0",
    DATABASE_URL: database.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    ...env,
  });
  const log = logOf(server);
  const { port, adapters } = await log.started();
  return { server, log, adapters, base: `http://127.0.0.1:${port}/api` };
}

/** A signed-in shopper with a sauce of its own in the cart. */
async function aShopper(base: string) {
  const sauce = aProduct({ price: 1299, inventory: 10 });
  await createPgDeps(database.db).repos.products.create(sauce);
  const email = `traced-${crypto.randomUUID().slice(0, 8)}@example.com`;
  let cookie = "";
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    cookie = res.headers.getSetCookie()[0]?.split(";")[0] ?? cookie;
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  };
  expect((await call("POST", "/auth/register", { email, password: "sauce lover 99" })).status).toBe(201);
  expect((await call("POST", "/auth/callback/credentials", { email, password: "sauce lover 99" })).status).toBe(200);
  expect((await call("POST", "/cart", { productId: sauce.id, quantity: 2 })).status).toBe(200);
  return { call, sauce, email };
}

const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

test("a checkout sent with a traceparent: its trace reaches the collector, the request's span continuing the caller's, placeOrder under it, its statements and processor calls under that; the log line names the trace", async () => {
  const shop = await startShop({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` });
  expect(shop.adapters.tracing).toStartWith(`OTLP/HTTP to 127.0.0.1:${collector.port}/v1/traces as service storefront`);
  const shopper = await aShopper(shop.base);
  const traceId = hex(16);
  const callerSpanId = hex(8);
  const checkout = await shopper.call("POST", "/cart/checkout", { shippingAddress: texas }, { traceparent: `00-${traceId}-${callerSpanId}-01` });
  expect(checkout.status).toBe(200);
  // The caller decided not to record its trace (flags 00): the shop follows, and still logs the trace id.
  const unsampled = hex(16);
  expect((await shopper.call("GET", "/cart", undefined, { traceparent: `00-${unsampled}-${hex(8)}-00` })).status).toBe(200);

  shop.server.kill("SIGTERM");
  expect(await shop.server.exited).toBe(0);
  await shop.log.done;

  const trace = received.filter((span) => span.traceId === traceId);
  expect(new Set(trace.map((span) => [span.service, span.host].join(" on ")))).toEqual(new Set([`storefront on ${hostname()}`]));
  const request = trace.filter((span) => span.kind === SERVER);
  expect(request).toHaveLength(1);
  expect(request[0]).toMatchObject({
    name: "POST /api/cart/checkout",
    parentSpanId: callerSpanId,
    attributes: { "http.request.method": "POST", "http.route": "/api/cart/checkout", "url.path": "/api/cart/checkout", "http.response.status_code": 200 },
  });
  const placeOrder = trace.filter((span) => span.name === "placeOrder");
  expect(placeOrder).toHaveLength(1);
  expect(placeOrder[0]!.parentSpanId).toBe(request[0]!.spanId);

  const statements = trace.filter((span) => span.parentSpanId === placeOrder[0]!.spanId && span.attributes["db.system"] === "postgresql");
  const names = statements.map((span) => span.name);
  expect(names).toEqual(expect.arrayContaining(["BEGIN", "DELETE cart_items", "UPDATE products", "INSERT orders", "COMMIT"]));
  expect(statements.every((span) => span.kind === CLIENT && span.attributes["db.system.name"] === "postgresql")).toBe(true);
  // The statement's text as compiled, its values never: no product id, address or email in any of them.
  const texts = trace.map((span) => span.attributes["db.query.text"]).filter((text): text is string => typeof text === "string");
  expect(statements.find((span) => span.name === "UPDATE products")?.attributes["db.query.text"]).toMatch(/update "products" set .* \$\d+/s);
  expect(texts.filter((text) => [shopper.sauce.id, texas.address1, shopper.email].some((value) => text.includes(value)))).toEqual([]);

  const processorCalls = trace.filter((span) => span.parentSpanId === placeOrder[0]!.spanId && span.kind === CLIENT && span.attributes["peer.service"]);
  expect(processorCalls.map((span) => [span.name, span.attributes["peer.service"]])).toEqual([
    ["TaxCalculator.calculate", "fake-processor"],
    ["PaymentGateway.createIntent", "fake-processor"],
  ]);

  expect(received.filter((span) => span.traceId === unsampled)).toEqual([]);
  const requestLines = shop.log.lines.filter((line) => line.event === "request");
  expect(requestLines.find((line) => line.path === "/api/cart/checkout")?.traceId).toBe(traceId);
  expect(requestLines.find((line) => line.path === "/api/cart" && line.method === "GET")?.traceId).toBe(unsampled);
}, 30_000);

test("a collector away, or one that never answers: requests are answered, and a SIGTERM still stops the shop cleanly (exit 0), the lost spans logged (found by an audit)", async () => {
  const away = Bun.serve({ port: 0, fetch: () => new Response(null) });
  const closedPort = away.port;
  away.stop(true);
  const silent = Bun.serve({ port: 0, fetch: () => new Promise<Response>(() => {}) });
  try {
    for (const endpoint of [`http://127.0.0.1:${closedPort}`, `http://127.0.0.1:${silent.port}`]) {
      const shop = await startShop({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      for (let i = 0; i < 3; i++) expect((await fetch(`${shop.base}/products?limit=1`)).status).toBe(200);
      shop.server.kill("SIGTERM");
      expect({ endpoint, exit: await shop.server.exited }).toEqual({ endpoint, exit: 0 });
      await shop.log.done;
      const events = shop.log.lines.map((line) => line.event);
      expect(events).toContain("server.stopped");
      expect(shop.log.lines.some((line) => line.event === "tracing.problem" && String(line.message).startsWith("the last spans were not sent"))).toBe(true);
    }
  } finally {
    silent.stop(true);
  }
}, 30_000);

test("with no OTLP endpoint, tracing is off: the start says so, and a request's traceparent is neither continued nor logged", async () => {
  const shop = await startShop({});
  expect(shop.adapters.tracing).toBe("off (OTEL_EXPORTER_OTLP_ENDPOINT unset)");
  const traceId = hex(16);
  expect((await fetch(`${shop.base}/products?limit=1`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } })).status).toBe(200);
  // The request's line is written after its answer has gone (once failed to be there under load, read at once).
  const line = await eventually(() => {
    const found = shop.log.lines.find((entry) => entry.event === "request" && entry.path === "/api/products");
    if (!found) throw new Error("no request line yet");
    return found;
  });
  expect(line).not.toHaveProperty("traceId");
  shop.server.kill("SIGTERM");
  expect(await shop.server.exited).toBe(0);
  await shop.log.done;
  expect(received.filter((span) => span.traceId === traceId)).toEqual([]);
}, 30_000);
