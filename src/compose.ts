import { availableParallelism } from "node:os";
import { RedisClient } from "bun";
import type { Deps } from "./application/ports/index.ts";
import type { Mailer } from "./application/ports/mail.ts";
import type { Logger, RateLimitStore } from "./application/ports/system.ts";
import { outboxBacklog } from "./application/system/check-health.ts";
import type { UseCaseOptions } from "./application/use-cases.ts";
import { messageOf } from "./domain/errors.ts";
import type { Config } from "./config.ts";
import { createBcryptHasher, maxWaitingFor } from "./adapters/crypto/bcrypt-hasher.ts";
import { commonPasswords } from "./adapters/crypto/common-passwords.ts";
import { type ConnectionStats, type Db, openDatabase } from "./adapters/db/database.ts";
import { PROBE_WAIT_MS, createPgProbe, createPgUnitOfWork } from "./adapters/db/store.ts";
import { createIdentityProviders } from "./adapters/identity/index.ts";
import { noMetrics } from "./adapters/metrics/none.ts";
import type { PrometheusMetrics } from "./adapters/metrics/prometheus.ts";
import { createLogMailer } from "./adapters/mail/log-mailer.ts";
import { createSmtpMailer } from "./adapters/mail/smtp-mailer.ts";
import { createFailoverRateLimitStore } from "./adapters/ratelimit/failover-store.ts";
import { within } from "./adapters/within.ts";
import { createMemoryRateLimitStore } from "./adapters/ratelimit/memory-store.ts";
import { createRedisRateLimitStore } from "./adapters/ratelimit/redis-store.ts";
import { type FakeProcessor, challengePageAt, createFakeProcessor } from "./adapters/payments/fake-processor.ts";
import { createPgFakeLedger } from "./adapters/db/fake-processor-ledger.ts";
import { cryptoRandom, cuid2Ids, systemClock } from "./adapters/system.ts";
import { traceProcessor } from "./adapters/tracing/processor-spans.ts";
import { statementSpans } from "./adapters/tracing/statement-spans.ts";
import type { Tracing } from "./adapters/tracing/tracing.ts";

export interface Runtime {
  deps: Deps;
  db: Db;
  /** True for the embedded PGlite database (decides the automatic demo seed). */
  embedded: boolean;
  /** The built-in fake processor when it takes the payments (it serves a 3-D Secure challenge page); null on Stripe. */
  fakeProcessor: FakeProcessor | null;
  /** With METRICS_PORT: the metrics to serve, and to tell of every request; null without. */
  metrics: PrometheusMetrics | null;
  /** OpenTelemetry as handed in (OTEL_EXPORTER_OTLP_ENDPOINT set): statements and processor calls are traced already, and close() sends the last spans. */
  tracing: Tracing | null;
  /** Which adapter serves each port, for the start-up log. */
  adapters: Record<string, string>;
  /** Connects what should be connected before the first request (Redis), waiting half a second at most; never fails the start. */
  connect(): Promise<void>;
  close(): Promise<void>;
}

function chooseMailer(config: Config, logger: Logger): { mailer: Mailer & { close?(): void }; description: string } {
  if (!config.mail.smtpUrl) return { mailer: createLogMailer(logger), description: "log (and the outbox table)" };
  const host = new URL(config.mail.smtpUrl).host;
  return { mailer: createSmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from }), description: `SMTP via ${host}` };
}

/** The longest the start waits for Redis. */
const REDIS_START_WAIT_MS = 500;

/**
 * Counters of rate limits and failed sign-ins: in this process, or with REDIS_URL in Redis, shared
 * by every instance (and kept in memory while Redis does not answer).
 */
function chooseCounters(config: Config, logger: Logger): { counters: RateLimitStore; description: string; connect(): Promise<void>; close(): void } {
  if (!config.redisUrl)
    return { counters: createMemoryRateLimitStore(), description: "in memory (this instance only)", connect: async () => {}, close: () => {} };
  // Commands fail at once while disconnected instead of queueing: the failover answers from memory meanwhile.
  const client = new RedisClient(config.redisUrl, { enableOfflineQueue: false, connectionTimeout: 1_000, autoReconnect: true });
  const connect = async () => {
    if (!client.connected) await client.connect();
  };
  const counters = createFailoverRateLimitStore({
    primary: createRedisRateLimitStore(client, config.redisKeyPrefix),
    fallback: createMemoryRateLimitStore(),
    logger,
    reconnect: connect,
  });
  const url = new URL(config.redisUrl);
  return {
    counters,
    description: `Redis at ${url.hostname}:${url.port || 6379}, keys under ${config.redisKeyPrefix} (memory while it does not answer)`,
    connect,
    close: () => {
      counters.close();
      client.close();
    },
  };
}

function chooseProcessor(
  config: Config,
  logger: Logger,
  db: Db,
): { processor: Deps["payments"] & Deps["tax"]; fake: FakeProcessor | null; description: string } {
  if (!config.stripe) {
    const fake = createFakeProcessor(cuid2Ids.next, createPgFakeLedger(db), challengePageAt(config.publicUrl));
    return {
      processor: fake,
      fake,
      description: "built-in fake processor (Stripe's test payment methods, state tax table; its intents kept in the database)",
    };
  }
  // The Stripe SDK is loaded only here: a shop on the fake processor does not carry it.
  const { createStripeClient, createStripeGateway } =
    require("./adapters/payments/stripe-gateway.ts") as typeof import("./adapters/payments/stripe-gateway.ts");
  const mode = config.stripe.secretKey.includes("_live_") ? "live" : "test";
  const host = config.stripe.apiBase ? new URL(config.stripe.apiBase).host : "api.stripe.com";
  return {
    processor: createStripeGateway(createStripeClient(config.stripe), logger),
    fake: null,
    description: `Stripe (${mode} mode) at ${host}, with Stripe Tax`,
  };
}

/** Which providers' webhooks are on (a provider not configured answers 503). */
function describeWebhooks(config: Config): string {
  const on = {
    stripe: config.stripeWebhookSecret,
    paypal: config.webhooks.paypal,
    square: config.webhooks.square,
    easypost: config.webhooks.easypostSecret,
    resend: config.webhooks.resendSecret,
  };
  const names = Object.entries(on)
    .filter(([, setting]) => setting)
    .map(([name]) => name);
  return names.length ? `on for ${names.join(", ")}; the others answer 503` : "none configured (each answers 503)";
}

function describeRateLimit({ max, passwordMax, windowSeconds }: Config["rateLimit"]): string {
  const perEndpoint = max === 0 ? "off per endpoint (RATE_LIMIT_MAX=0)" : `${max} requests per ${windowSeconds} s per client and endpoint`;
  const passwords =
    passwordMax === 0
      ? "off on the password routes (PASSWORD_RATE_LIMIT_MAX=0)"
      : `${passwordMax} per ${windowSeconds} s per client on the password routes together`;
  return `${perEndpoint}; ${passwords}`;
}

/**
 * Decisions §14: with METRICS_PORT, Prometheus metrics, reading the pool, the counters' store and
 * the outbox when scraped. prom-client is loaded only then: a shop without metrics does not carry
 * it (some 3 to 5 MB of the server's memory).
 */
function chooseMetrics(
  config: Config,
  sources: { connections(): ConnectionStats; counters: RateLimitStore; uow: Deps["uow"]; probeWaitMs: number | null },
): PrometheusMetrics | null {
  if (config.metricsPort === null) return null;
  const { createPrometheusMetrics } = require("./adapters/metrics/prometheus.ts") as typeof import("./adapters/metrics/prometheus.ts");
  return createPrometheusMetrics({
    connections: sources.connections,
    rateLimitStore: () => sources.counters.state(),
    outbox: () => (sources.probeWaitMs === null ? outboxBacklog(sources) : within(outboxBacklog(sources), sources.probeWaitMs)),
  });
}

function describeTracing({ tracing }: Config): string {
  if (!tracing) return "off (OTEL_EXPORTER_OTLP_ENDPOINT unset)";
  const { ratio, parentBased } = tracing.sampler;
  const url = new URL(tracing.tracesUrl);
  const kept = `${ratio * 100} % of new traces${parentBased ? ", a caller's traceparent deciding for its own" : ""}`;
  return `OTLP/HTTP to ${url.host}${url.pathname} as service ${tracing.serviceName}, ${kept}`;
}

/** What the use cases take from the configuration: the server and every CLI command bind them alike. */
export function useCaseOptionsOf(config: Config): UseCaseOptions {
  return {
    publicUrl: config.publicUrl,
    orders: config.orders,
    rateLimit: config.rateLimit,
    sessionCacheSeconds: config.sessionCacheSeconds,
    lowStockThreshold: config.lowStockThreshold,
    shopTimeZone: config.shopTimeZone,
  };
}

/** Picks an adapter for every port from the configuration; with `tracing`, the database and the processor in spans. */
export function buildRuntime(config: Config, logger: Logger, tracing: Tracing | null = null): Runtime {
  const {
    db,
    connections,
    description,
    embedded,
    close: closeDatabase,
  } = openDatabase(config.database, logger, tracing ? statementSpans(tracing.tracer) : undefined);
  const { mailer, description: mail } = chooseMailer(config, logger);
  const identityProviders = createIdentityProviders(config.oauth, config.publicUrl);
  // Leave one core to the requests that need no hashing.
  const hashingThreads = Math.max(1, availableParallelism() - 1);
  const { processor, fake, description: payments } = chooseProcessor(config, logger, db);
  const processorPorts = tracing ? traceProcessor(processor, tracing.tracer, fake ? "fake-processor" : "stripe") : { payments: processor, tax: processor };
  const counters = chooseCounters(config, logger);
  const uow = createPgUnitOfWork(db);
  // PostgreSQL may stop answering (frozen, cut off): the probes give up on it; the embedded database is the process's own.
  const probeWaitMs = config.database.kind === "postgres" ? PROBE_WAIT_MS : null;
  const metrics = chooseMetrics(config, { connections, counters: counters.counters, uow, probeWaitMs });
  const deps: Deps = {
    uow,
    clock: systemClock,
    ids: cuid2Ids,
    random: cryptoRandom,
    database: createPgProbe(db, probeWaitMs),
    hasher: createBcryptHasher({ concurrency: hashingThreads, cost: config.bcryptCost }),
    commonPasswords,
    mailer,
    payments: processorPorts.payments,
    tax: processorPorts.tax,
    loginAttempts: counters.counters,
    rateLimits: counters.counters,
    identityProviders,
    logger,
    metrics: metrics?.shop ?? noMetrics,
  };
  return {
    deps,
    db,
    embedded,
    fakeProcessor: fake,
    metrics,
    tracing,
    adapters: {
      database: description,
      mail,
      payments,
      webhooks: describeWebhooks(config),
      passwordHashing: `bcrypt cost ${config.bcryptCost}, ${hashingThreads} at a time; waiting, as many as that checks in 1.2 s (${maxWaitingFor(hashingThreads)} at most), one per client`,
      counters: counters.description,
      rateLimit: describeRateLimit(config.rateLimit),
      identityProviders: [...identityProviders.keys()].join(", ") || "none configured",
      tracing: describeTracing(config),
    },
    async connect() {
      // Redis that does not answer at start is no reason not to start, nor to wait for its client's
      // retries: the counters begin in memory, and the failover finds Redis when it answers.
      await within(counters.connect(), REDIS_START_WAIT_MS).catch((error: unknown) => logger.warn("redis.unreachable_at_start", { error: messageOf(error) }));
    },
    async close() {
      mailer.close?.();
      counters.close();
      await closeDatabase();
      await tracing?.shutdown();
    },
  };
}
