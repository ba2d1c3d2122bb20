import { Elysia } from "elysia";
import { TOO_MANY_REQUESTS } from "../../../domain/errors.ts";
import type { RateLimitVerdict } from "../../../application/limits/rate-limit.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { HttpError } from "../errors.ts";
import { pathOf, requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";

/** Decisions §9: not limited (by the route a request reaches, so no other path borrows it): health (liveness and readiness) and webhooks. */
export const unlimited = (pattern: string) => pattern === "/api/health" || pattern === "/api/health/ready" || pattern.startsWith("/api/webhooks/");

/**
 * Never exempt, marker or not: every route that checks a password or makes an account. A session is
 * free to make, so exempting these would let anyone guess passwords, register without end, and
 * crowd real sign-ins out of the password-check queue.
 */
const alwaysLimited = (pattern: string | undefined) => pattern?.startsWith("/api/auth/") === true || pattern === "/api/users/password";

/** Decisions §15: the endpoints that check a password, which share a tighter limit per client besides their own. */
export const PASSWORD_ENDPOINTS: ReadonlySet<string> = new Set(["POST /api/auth/callback/credentials", "POST /api/auth/register", "POST /api/users/password"]);

/** Of the limits a request counted against, the one it is nearer the end of speaks for it: a refusing one, else the one with fewer left. */
const nearerItsEnd = (verdicts: RateLimitVerdict[]) => verdicts.sort((a, b) => Number(a.allowed) - Number(b.allowed) || a.remaining - b.remaining)[0];

/** An IPv6 address as its eight groups, numbers (an embedded dotted IPv4 tail as its two). */
function groupsOf(ip: string): number[] {
  const [address = ""] = ip.split("%");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${((+dotted[1]! << 8) | +dotted[2]!).toString(16)}:${((+dotted[3]! << 8) | +dotted[4]!).toString(16)}`
    : address;
  const [head = "", tail] = hex.split("::");
  const part = (text: string) => (text ? text.split(":").map((group) => parseInt(group, 16)) : []);
  const [left, right] = [part(head), part(tail ?? "")];
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * Whom the limit counts: an IPv4 address (an IPv4-mapped IPv6 one, however written, as IPv4), or
 * an IPv6 address's /64, the network one subscriber is given, where a host may take any of 2^64
 * addresses. Given an address (the request's, checked as one).
 */
export function clientOf(ip: string): string {
  if (!ip.includes(":")) return ip;
  const groups = groupsOf(ip);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** Whom a request counts as: its address's client, or "unknown" (all requests with no address, together). */
export function clientOfRequest(request: Request): string {
  const ip = requestInfo(request)?.ip;
  return ip ? clientOf(ip) : "unknown";
}

export interface RateLimitSettings {
  /** RATE_LIMIT_EXEMPT_USER_AGENT: the mobile app's marker, which exempts it together with a live session. */
  exemptUserAgent: string;
  hasLiveSession(request: Request): Promise<boolean>;
}

/**
 * Decisions §9, first on every request after its id and CORS headers, before its body is read:
 * one count per client IP (as TRUST_PROXY says to find it; an IPv6 client by its /64) and endpoint
 * (method and route pattern: /api/products/a and /api/products/b share one), in a fixed window. Every limited answer carries
 * X-RateLimit-Limit, -Remaining and -Reset (Unix seconds); past the limit it is 429 with
 * Retry-After, the window's length. Health and webhooks are not limited, nor the mobile app (its
 * User-Agent marker and a live session, both) except where passwords are checked. OPTIONS on a
 * known path never gets here: CORS answers it first, from the route table alone.
 *
 * Decisions §15: sign-in, registration and password change also count together, per client, against
 * PASSWORD_RATE_LIMIT_MAX in the same window and store. Both limits apply to them (every request
 * counts in both; the tighter refuses first) and the answer's headers are those of the limit the
 * request is nearer the end of. Each limit is off at 0 on its own. A refused password check gives
 * back its e-mail's lockout count, never these: they count what a client asks, answered or not.
 */
export function rateLimit(useCases: UseCases, routes: RouteTable, settings: RateLimitSettings) {
  const { max, passwordMax, windowSeconds } = useCases.rateLimit;
  return new Elysia({ name: "plumbing.rate-limit" }).onRequest(async ({ request, set }) => {
    if (max === 0 && passwordMax === 0) return;
    const path = pathOf(request);
    // §9 limits the API. The web pages and their files (web.ts) are not its endpoints: a browser asks
    // for three at every page, served from memory; counted, a shopper would be refused the shop.
    if (path !== "/api" && !path.startsWith("/api/")) return;
    // HEAD runs the GET route: one count for both.
    const method = request.method === "HEAD" ? "GET" : request.method;
    const pattern = routes.patternAt(method, path);
    // Another method at an unlimited route (405) is not counted either: health and webhooks are never limited.
    if ((pattern ? [pattern] : routes.patternsAt(path)).some(unlimited)) return;
    const endpoint = `${method} ${pattern ?? "(no route)"}`;
    const checksPasswords = passwordMax > 0 && PASSWORD_ENDPOINTS.has(endpoint);
    if (max === 0 && !checksPasswords) return;
    if (!alwaysLimited(pattern) && request.headers.get("user-agent")?.includes(settings.exemptUserAgent) && (await settings.hasLiveSession(request))) return;
    const client = clientOfRequest(request);
    const verdicts = await Promise.all([
      ...(max > 0 ? [useCases.takeRequest(client, endpoint)] : []),
      ...(checksPasswords ? [useCases.takePasswordRequest(client)] : []),
    ]);
    const verdict = nearerItsEnd(verdicts)!;
    set.headers["x-ratelimit-limit"] = String(verdict.limit);
    set.headers["x-ratelimit-remaining"] = String(verdict.remaining);
    set.headers["x-ratelimit-reset"] = String(Math.ceil(verdict.resetAt.getTime() / 1000));
    if (!verdict.allowed) {
      set.headers["retry-after"] = String(windowSeconds);
      throw new HttpError(429, TOO_MANY_REQUESTS);
    }
  });
}
