import { Elysia } from "elysia";
import type { UseCases } from "../../../application/use-cases.ts";
import { HttpError } from "../errors.ts";
import { requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";

/** Decisions §9: not limited. */
const UNLIMITED = ["/api/health", "/api/webhooks/"];

export interface RateLimitSettings {
  /** RATE_LIMIT_EXEMPT_USER_AGENT: the mobile app's marker, which exempts it together with a live session. */
  exemptUserAgent: string;
  hasLiveSession(request: Request): Promise<boolean>;
}

/**
 * Decisions §9, first on every request after its id and CORS headers, before its body is read:
 * one count per client IP (as TRUST_PROXY says to find it) and endpoint (method and route pattern:
 * /api/products/a and /api/products/b share one), in a fixed window. Every limited answer carries
 * X-RateLimit-Limit, -Remaining and -Reset (Unix seconds); past the limit it is 429 with
 * Retry-After, the window's length. Health, webhooks and CORS preflights are not limited, nor the
 * mobile app: its User-Agent marker and a live session, both.
 */
export function rateLimit(useCases: UseCases, routes: RouteTable, settings: RateLimitSettings) {
  const { max, windowSeconds } = useCases.rateLimit;
  return new Elysia({ name: "plumbing.rate-limit" }).onRequest(async ({ request, set }) => {
    if (max === 0 || request.method === "OPTIONS") return;
    const path = new URL(request.url).pathname;
    if (UNLIMITED.some((prefix) => path === prefix || path.startsWith(prefix))) return;
    if (request.headers.get("user-agent")?.includes(settings.exemptUserAgent) && (await settings.hasLiveSession(request))) return;
    const endpoint = `${request.method} ${routes.patternAt(request.method, path) ?? "(no route)"}`;
    const verdict = await useCases.takeRequest(requestInfo(request)?.ip ?? "unknown", endpoint);
    set.headers["x-ratelimit-limit"] = String(verdict.limit);
    set.headers["x-ratelimit-remaining"] = String(verdict.remaining);
    set.headers["x-ratelimit-reset"] = String(Math.ceil(verdict.resetAt.getTime() / 1000));
    if (!verdict.allowed) {
      set.headers["retry-after"] = String(windowSeconds);
      throw new HttpError(429, "Rate limit exceeded. Please try again later.");
    }
  });
}
