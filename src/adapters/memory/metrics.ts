import type { ShopMetrics } from "../../application/ports/metrics.ts";

export type MemoryMetrics = ShopMetrics & {
  /** How many times each event was told, by its name and labels: `checkout placed`, `webhook stripe applied`. */
  counts: Map<string, number>;
  /** The count of one event, 0 when never told. */
  count(event: string): number;
};

/** Keeps every count, for tests to read. */
export function createMemoryMetrics(): MemoryMetrics {
  const counts = new Map<string, number>();
  const told = (...parts: string[]) => {
    const key = parts.join(" ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  return {
    counts,
    count: (event) => counts.get(event) ?? 0,
    checkout: (outcome) => told("checkout", outcome),
    payment: (outcome) => told("payment", outcome),
    webhook: (provider, outcome) => told("webhook", provider, outcome),
    rateLimitRefusal: (limit) => told("rateLimitRefusal", limit),
    passwordCheckRefusal: (reason) => told("passwordCheckRefusal", reason),
    housekeepingRun: (outcome) => told("housekeepingRun", outcome),
  };
}
