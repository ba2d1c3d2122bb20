import type { Deps } from "../ports/index.ts";

export interface RateLimitPolicy {
  /** Requests a client may make to one endpoint in a window; 0: no limit. */
  max: number;
  /** Decisions §15: requests a client may make in a window to the routes that check passwords, all of them together; 0: no such limit. */
  passwordMax: number;
  windowSeconds: number;
}

/** Decisions §9 and §15: 100 requests an endpoint and 10 to the password routes, each per 15 minutes. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { max: 100, passwordMax: 10, windowSeconds: 900 };

/** What the routes that check passwords count under, together (no endpoint is named so). */
export const PASSWORD_ROUTES = "(password routes)";

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window ends. */
  resetAt: Date;
}

/**
 * Decisions §9: counts one request of a client (its IP) to an endpoint (method and route pattern)
 * in a fixed window, and says whether it is within the limit; the routes that check passwords
 * count under PASSWORD_ROUTES as well, with a limit of their own (decisions §15). `policy.max` is
 * above 0: a limit of 0 means none, and its requests are never counted (the HTTP plumbing lets them
 * through without asking).
 */
export async function takeRequest(
  deps: Pick<Deps, "rateLimits" | "clock">,
  policy: { max: number; windowSeconds: number },
  client: string,
  endpoint: string,
): Promise<RateLimitVerdict> {
  const window = await deps.rateLimits.increment(`rate:${endpoint}:${client}`, policy.windowSeconds * 1000, deps.clock.now());
  return { allowed: window.count <= policy.max, limit: policy.max, remaining: Math.max(0, policy.max - window.count), resetAt: window.resetAt };
}
