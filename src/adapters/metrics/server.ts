import type { Logger } from "../../application/ports/system.ts";
import { messageOf } from "../../domain/errors.ts";
import { pathOf } from "../http/plumbing/request-context.ts";
import type { PrometheusMetrics } from "./prometheus.ts";

const text = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(`${body}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });

/**
 * The metrics' own listener (decisions §14): GET /metrics on METRICS_PORT, in Prometheus's text
 * format, and nothing else. Apart from the API, so it is never rate limited and never reachable
 * through the API's port; keep the port itself off the public network.
 */
export function serveMetrics(metrics: Pick<PrometheusMetrics, "scrape">, port: number, logger: Logger) {
  return Bun.serve({
    port,
    reusePort: false,
    async fetch(request) {
      // pathOf: a request without a Host (HTTP/1.0) has a URL of its path alone, which `new URL` refuses (found by an attack).
      if (pathOf(request) !== "/metrics") return text("Not found: the metrics are at /metrics", 404);
      if (request.method !== "GET" && request.method !== "HEAD") return text("Method not allowed", 405, { allow: "GET, HEAD" });
      try {
        const scraped = await metrics.scrape();
        return new Response(scraped.text, { headers: { "content-type": scraped.contentType } });
      } catch (error) {
        logger.error("metrics.scrape_failed", { error: messageOf(error) });
        return text("The metrics could not be read", 500);
      }
    },
    // Anything else that throws: a bare 500 and a log line, never Bun's page of the source.
    error(error) {
      logger.error("metrics.failed", { error: messageOf(error) });
      return text("The metrics could not be read", 500);
    },
  });
}
