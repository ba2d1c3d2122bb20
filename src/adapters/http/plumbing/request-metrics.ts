import { Elysia } from "elysia";
import { pathOf, requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";

/** Told of every answered request: its method, route pattern, status and duration. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/** The label of a request that reached no route (an unknown path, or a method the path does not serve). */
export const UNMATCHED = "unmatched";

/** Any other method is counted as OTHER: a label takes only a few values, whatever clients send. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Decisions §14: every request counted and timed by method, route pattern and status. The pattern
 * (`/api/products/:id`), never the path, so ids cannot make a series each. A request answered before
 * routing (a 429, a preflight) is labelled with the pattern it would have reached.
 */
export function requestMetrics(observe: RequestObserver, routes: RouteTable) {
  const patternOf = (method: string, request: Request) => {
    const path = pathOf(request);
    if (method !== "OPTIONS") return routes.patternAt(method, path);
    for (const routeMethod of ROUTE_METHODS) {
      const pattern = routes.patternAt(routeMethod, path);
      if (pattern) return pattern;
    }
  };
  return new Elysia({ name: "plumbing.request-metrics" }).onAfterResponse({ as: "global" }, ({ request, set, route, responseValue }) => {
    const info = requestInfo(request);
    if (!info) return;
    const method = METHODS.has(request.method) ? request.method : "OTHER";
    // A handler that returns a Response (a redirect, say) sets its status there, not in `set`.
    const status = responseValue instanceof Response ? responseValue.status : set.status;
    observe(method, route || patternOf(method, request) || UNMATCHED, typeof status === "number" ? status : 200, (performance.now() - info.startedAt) / 1000);
  });
}
