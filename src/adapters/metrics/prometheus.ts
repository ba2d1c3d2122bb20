import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { CheckoutOutcome, PasswordCheckRefusal, PaymentOutcome, RateLimitName, ShopMetrics, WebhookOutcome } from "../../application/ports/metrics.ts";
import { WEBHOOK_PROVIDERS } from "../events/index.ts";
import type { RateLimitStoreState } from "../../application/ports/system.ts";

/** What is read when Prometheus scrapes, rather than counted as it happens. */
export interface MetricSources {
  /** The database's connections: in use, waiting for one, and the most there may be. */
  connections(): { inUse: number; waiting: number; max: number };
  rateLimitStore(): RateLimitStoreState;
  /** Rejects when the database does not answer: the outbox's gauges are then left out of the scrape. */
  outbox(): Promise<{ pending: number; failed: number }>;
}

export interface PrometheusMetrics {
  shop: ShopMetrics;
  /** One answered request: its method, route pattern (never the raw path), status and duration. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Every metric in Prometheus's text format, and its content type. */
  scrape(): Promise<{ text: string; contentType: string }>;
}

// Every value of each label, so that each series exists (at 0) from the start: a rate over a series
// that appears with its first event misses that event.
const CHECKOUTS: Record<CheckoutOutcome, null> = {
  placed: null,
  insufficient_inventory: null,
  cart_changed: null,
  tax_failed: null,
  intent_failed: null,
  refused: null,
  error: null,
};
const PAYMENTS: Record<PaymentOutcome, null> = {
  paid: null,
  requires_action: null,
  processing: null,
  declined: null,
  canceled: null,
  refunded: null,
  processor_failed: null,
  refused: null,
  error: null,
};
const RATE_LIMITS: Record<RateLimitName, null> = { endpoint: null, password: null };
const QUEUE_REFUSALS: Record<PasswordCheckRefusal, null> = { busy: null, client_waiting: null };
const STORE_STATES: Record<RateLimitStoreState, null> = { redis: null, memory: null, fallback: null };
const HOUSEKEEPING = { done: null, failed: null };
const WEBHOOK_OUTCOMES: Record<WebhookOutcome, null> = {
  applied: null,
  unchanged: null,
  duplicate: null,
  ignored: null,
  not_found: null,
  flagged: null,
  rejected: null,
  error: null,
};

/** From 1 ms (a catalog read) to 10 s (a payment waiting on its processor). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function counter<L extends string>(registry: Registry, name: string, help: string, label: L, values: Record<string, null>) {
  const metric = new Counter({ name, help, labelNames: [label], registers: [registry] });
  for (const value of Object.keys(values)) metric.inc({ [label]: value } as Record<L, string>, 0);
  return metric;
}

/**
 * The shop's metrics (decisions §14) in a registry of their own, with the process's from
 * prom-client (CPU, memory, event-loop lag, heap, handles) under their usual names.
 */
export function createPrometheusMetrics(sources: MetricSources): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labels = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "storefront_http_requests_total",
    help: "Requests answered, by method, route pattern and status",
    labelNames: labels,
    registers: [registry],
  });
  const durations = new Histogram({
    name: "storefront_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method, route pattern and status",
    labelNames: labels,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const checkouts = counter(registry, "storefront_checkouts_total", "Checkouts, by outcome", "outcome", CHECKOUTS);
  const payments = counter(registry, "storefront_payments_total", "Payments asked for by customers, by outcome", "outcome", PAYMENTS);
  const webhooks = new Counter({
    name: "storefront_webhooks_total",
    help: "Webhook deliveries, by provider and outcome",
    labelNames: ["provider", "outcome"],
    registers: [registry],
  });
  // From the start, as the other counters: increase() over a series that appears at its first delivery misses that delivery.
  for (const provider of WEBHOOK_PROVIDERS) for (const outcome of Object.keys(WEBHOOK_OUTCOMES)) webhooks.inc({ provider, outcome }, 0);
  const refusals = counter(registry, "storefront_rate_limit_refusals_total", "Requests refused by a rate limit, by limit", "limit", RATE_LIMITS);
  const queue = counter(registry, "storefront_password_check_refusals_total", "Password checks the queue refused, by reason", "reason", QUEUE_REFUSALS);
  const housekeeping = counter(registry, "storefront_housekeeping_runs_total", "Housekeeping (sweeper) runs, by outcome", "outcome", HOUSEKEEPING);

  const gauge = (name: string, help: string, read: (stats: ReturnType<MetricSources["connections"]>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(sources.connections()));
      },
    });
  gauge("storefront_db_connections_in_use", "Database connections checked out", (stats) => stats.inUse);
  gauge("storefront_db_connections_waiting", "Asks for a database connection not yet given one", (stats) => stats.waiting);
  gauge("storefront_db_connections_max", "The most database connections there may be", (stats) => stats.max);
  new Gauge({
    name: "storefront_rate_limit_store",
    help: "Where the rate-limit counters are kept now: 1 for the state in use (redis, memory, or fallback: memory while Redis does not answer)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const now = sources.rateLimitStore();
      for (const state of Object.keys(STORE_STATES)) this.set({ state }, state === now ? 1 : 0);
    },
  });
  new Gauge({
    name: "storefront_mail_outbox_messages",
    help: "Mail in the outbox waiting to be sent (pending) or given up on (failed)",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const backlog = await sources.outbox().catch(() => null);
      if (!backlog) return this.reset();
      this.set({ status: "pending" }, backlog.pending);
      this.set({ status: "failed" }, backlog.failed);
    },
  });

  return {
    shop: {
      checkout: (outcome) => checkouts.inc({ outcome }),
      payment: (outcome) => payments.inc({ outcome }),
      webhook: (provider, outcome) => webhooks.inc({ provider, outcome }),
      rateLimitRefusal: (limit) => refusals.inc({ limit }),
      passwordCheckRefusal: (reason) => queue.inc({ reason }),
      housekeepingRun: (outcome) => housekeeping.inc({ outcome }),
    },
    request(method, route, status, seconds) {
      const values = { method, route, status };
      requests.inc(values);
      durations.observe(values, seconds);
    },
    async scrape() {
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
