import { Elysia } from "elysia";
import { pathOf } from "./request-context.ts";

const EXPOSED = ["X-Request-Id", "X-Total-Count", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"];

/**
 * Decisions §10: for an origin listed in CORS_ORIGINS (exact match), preflights get 204 with the
 * allowed methods and headers, and answers carry Allow-Origin (echoed), Allow-Credentials and
 * Expose-Headers; any other origin gets no CORS header at all (`Vary: Origin`, on every answer, is
 * set by the request context, which runs first).
 * (@elysiajs/cors adds its credential and header lists to every answer, whatever the origin.)
 * `methodsFor` says which methods a path serves; a preflight for a path that serves none is a 404.
 */
export function cors(allowedOrigins: readonly string[], methodsFor: (path: string) => string[]) {
  const allowed = new Set(allowedOrigins);
  return new Elysia({ name: "plumbing.cors" }).onRequest(({ request, set }) => {
    const origin = request.headers.get("origin");
    const trusted = origin !== null && allowed.has(origin);
    if (trusted) {
      set.headers["access-control-allow-origin"] = origin;
      set.headers["access-control-allow-credentials"] = "true";
      set.headers["access-control-expose-headers"] = EXPOSED.join(", ");
    }
    if (request.method !== "OPTIONS") return;
    const methods = methodsFor(pathOf(request));
    if (methods.length === 0) return;
    set.headers.allow = [...methods, "OPTIONS"].join(", ");
    if (trusted && request.headers.has("access-control-request-method")) {
      set.headers["access-control-allow-methods"] = methods.join(", ");
      set.headers["access-control-allow-headers"] = "content-type, authorization, idempotency-key";
      set.headers["access-control-max-age"] = "600";
    }
    set.status = 204;
    return new Response(null, { status: 204 });
  });
}
