import type { Deps } from "../ports/index.ts";

export interface RateLimitPolicy {
  /** Requests a client may make to one endpoint in a window; 0: no limit. */
  max: number;
  windowSeconds: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window ends. */
  resetAt: Date;
}

/**
 * Decisions §9: counts one request of a client (its IP) to an endpoint (method and route pattern)
 * in a fixed window, and says whether it is within the limit.
 */
export async function takeRequest(
  deps: Pick<Deps, "rateLimits" | "clock">,
  policy: RateLimitPolicy,
  client: string,
  endpoint: string,
): Promise<RateLimitVerdict> {
  const window = await deps.rateLimits.increment(`rate:${endpoint}:${client}`, policy.windowSeconds * 1000, deps.clock.now());
  return { allowed: window.count <= policy.max, limit: policy.max, remaining: Math.max(0, policy.max - window.count), resetAt: window.resetAt };
}
