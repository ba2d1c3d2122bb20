import { expect, test } from "bun:test";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { eventually } from "../support/eventually.ts";
import { createTestApp } from "../support/http.ts";

// Each request's server span is named by method and route pattern, as the metrics label it: a
// request the rate limit refuses before routing too (found by an audit: it was a bare `GET`, with
// no http.route, where the metrics said `/api/products/:id`).

test("a request's span is named by its route's pattern, a 429 refused before routing too; a path no route serves by its method alone", async () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer("test");
  const t = createTestApp(undefined, { tracer, rateLimit: { max: 2, windowSeconds: 900 } });
  const statuses = [];
  for (const id of ["a1", "b2", "c3"]) statuses.push((await t.call("GET", `/api/products/${id}`)).status);
  expect(statuses).toEqual([404, 404, 429]);
  expect((await t.call("GET", "/api/no-such-route")).status).toBe(404);
  // A span ends once its answer is sent, after the call has it.
  await eventually(() => expect(exporter.getFinishedSpans()).toHaveLength(4));

  const spans = exporter.getFinishedSpans().map((span) => [span.name, span.attributes["http.route"], span.attributes["http.response.status_code"]]);
  expect(spans).toEqual([
    ["GET /api/products/:id", "/api/products/:id", 404],
    ["GET /api/products/:id", "/api/products/:id", 404],
    ["GET /api/products/:id", "/api/products/:id", 429],
    ["GET", undefined, 404],
  ]);
});
