import {
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  context,
  isSpanContextValid,
  propagation,
  trace,
} from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from "@opentelemetry/semantic-conventions";
import { Elysia } from "elysia";
import { pathOf, requestInfo } from "./request-context.ts";
import { patternOf } from "./request-metrics.ts";
import type { RouteTable } from "./route-table.ts";
import { bodyEndOf } from "./streamed-body.ts";

const spans = new WeakMap<Request, Span>();

/** The semantic conventions' name, still in their incubating set (copied, as they advise, not imported from it). */
const ATTR_HTTP_RESPONSE_BODY_SIZE = "http.response.body.size";

/** Methods outside HTTP's own are `_OTHER` (semantic conventions): a span name never carries what a client made up. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);
const methodOf = (request: Request) => (METHODS.has(request.method) ? request.method : "_OTHER");
/** Bun gives a bare path for a request that named no host (see request-context.ts). */
const schemeOf = (request: Request) => URL.parse(request.url, "http://host.invalid")?.protocol.replace(":", "") ?? "http";

const fromHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** The id of the trace a request is part of (its caller's, from `traceparent`, or one begun here), for its log line; undefined while tracing is off. */
export function traceIdOf(request: Request): string | undefined {
  const span = spans.get(request)?.spanContext();
  return span && isSpanContextValid(span) ? span.traceId : undefined;
}

/**
 * A server span for every request, named by method and route pattern (`POST /api/cart/checkout`,
 * never the raw path), continuing the caller's trace when it sends `traceparent`. The span is the
 * active one while the request is handled, so the use cases, statements and processor calls are its
 * children: Elysia's `wrap` (the hook its own OpenTelemetry plugin uses; marked internal, so the
 * tracing process test is what notices if an upgrade changes it) runs the whole handler, every
 * hook included, inside it. Without a tracer: nothing at all.
 */
export function serverSpans(tracer: Tracer | null, routes: RouteTable) {
  const plugin = new Elysia({ name: "plumbing.server-spans" });
  if (!tracer) return plugin;
  return plugin
    .wrap((handle, request) => {
      const parent = propagation.extract(ROOT_CONTEXT, request.headers, fromHeaders);
      const method = methodOf(request);
      const attributes = { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: pathOf(request), [ATTR_URL_SCHEME]: schemeOf(request) };
      const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
      spans.set(request, span);
      return context.bind(trace.setSpan(parent, span), handle);
    })
    .onAfterResponse({ as: "global" }, async ({ request, route, set, responseValue }) => {
      const span = spans.get(request);
      if (!span) return;
      // A streamed answer (an export) ends its span when its body ends: the statements that feed it are its children.
      const ended = await bodyEndOf(request);
      // A handler that returns a Response (a redirect, say) sets its status there, not in `set`.
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      // Refused before routing (a 429), the pattern it would have reached, as the metrics label it (found by an audit).
      const pattern = patternOf(request, route, routes);
      if (pattern) {
        span.updateName(`${methodOf(request)} ${pattern}`);
        span.setAttribute(ATTR_HTTP_ROUTE, pattern);
      }
      const ip = requestInfo(request)?.ip;
      if (ip) span.setAttribute(ATTR_CLIENT_ADDRESS, ip);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // A server's 4xx is the client's doing; only a 5xx marks the span failed (semantic conventions).
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      if (ended) {
        span.setAttribute(ATTR_HTTP_RESPONSE_BODY_SIZE, ended.bytes);
        // Cut by the shop after its 200 went: a failure all the same.
        if (ended.body === "cut") {
          span.setAttribute(ATTR_ERROR_TYPE, "body_cut");
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        if (ended.body === "abandoned") span.setAttribute("storefront.body", "abandoned");
      }
      span.end();
    });
}
