import { Elysia } from "elysia";
import { pathOf, requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";
import { bodyEndOf } from "./streamed-body.ts";

/** Told of every answered request: its method, route pattern, status and duration. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/** The label of a request that reached no route (an unknown path, or a method the path does not serve). */
export const UNMATCHED = "unmatched";

/**
 * The web pages' catch-all route (web.ts). A path under /api reaches it only when no API route
 * serves that path: counted as unmatched, as without the pages.
 */
const WEB_PAGES_ROUTE = "/*";
const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/");

/** Any other method is counted as OTHER: a label takes only a few values, whatever clients send. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The route pattern of a request: the one it reached or, refused before routing (a 429), the one it
 * would have reached; undefined when none serves it. Metrics label by it and spans are named by it,
 * so the two name one request alike.
 */
export function patternOf(request: Request, route: string, routes: RouteTable): string | undefined {
  const path = pathOf(request);
  const reached = route === WEB_PAGES_ROUTE && isApiPath(path) ? "" : route;
  return reached || routes.patternAt(request.method, path) || undefined;
}

/**
 * Decisions §14: every request counted and timed by method, route pattern and status. The pattern
 * (`/api/products/:id`), never the path, so ids cannot make a series each. A request refused before
 * routing (a 429) is labelled with the pattern it would have reached. An OPTIONS request to a path
 * the API serves (a CORS preflight, or any other), answered before anything else, is not counted
 * (nor logged).
 */
export function requestMetrics(observe: RequestObserver, routes: RouteTable) {
  return new Elysia({ name: "plumbing.request-metrics" }).onAfterResponse({ as: "global" }, async ({ request, set, route, responseValue }) => {
    // A streamed answer (an export) is timed to its body's end.
    await bodyEndOf(request);
    const info = requestInfo(request);
    if (!info) return;
    const method = METHODS.has(request.method) ? request.method : "OTHER";
    // A handler that returns a Response (a redirect, say) sets its status there, not in `set`.
    const status = responseValue instanceof Response ? responseValue.status : set.status;
    observe(method, patternOf(request, route, routes) ?? UNMATCHED, typeof status === "number" ? status : 200, (performance.now() - info.startedAt) / 1000);
  });
}
