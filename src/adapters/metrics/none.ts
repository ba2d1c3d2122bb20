import type { ShopMetrics } from "../../application/ports/metrics.ts";

const ignore = () => {};

/** Without METRICS_PORT nobody scrapes: every count goes nowhere, at no cost. */
export const noMetrics: ShopMetrics = {
  checkout: ignore,
  payment: ignore,
  webhook: ignore,
  rateLimitRefusal: ignore,
  passwordCheckRefusal: ignore,
  housekeepingRun: ignore,
};
