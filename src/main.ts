import { demoCatalog } from "./application/catalog/demo-catalog.ts";
import { createOutboxWorker } from "./application/mail/outbox-worker.ts";
import { createHousekeeping } from "./application/system/housekeeping.ts";
import { periodic } from "./application/system/periodic.ts";
import { makeUseCases } from "./application/use-cases.ts";
import { messageOf } from "./domain/errors.ts";
import { SYSTEM_ACTOR } from "./domain/permissions.ts";
import { resolveAuthSecret } from "./adapters/crypto/auth-secret.ts";
import { commonPasswords } from "./adapters/crypto/common-passwords.ts";
import { readySchema } from "./adapters/db/migrate.ts";
import { join } from "node:path";
import { createApp } from "./adapters/http/app.ts";
import { redeliverFakeEvents } from "./adapters/payments/fake-processor-events.ts";
import { buildWebApps, withWebApps } from "./adapters/http/web.ts";
import { createJsonLogger } from "./adapters/log.ts";
import { serveMetrics } from "./adapters/metrics/server.ts";
import { observeWebhookVerifiers } from "./application/system/observe.ts";
import { startTracing } from "./adapters/tracing/tracing.ts";
import { traceUseCases } from "./adapters/tracing/use-case-spans.ts";
import { webhookVerifiers } from "./adapters/events/index.ts";
import { type Runtime, buildRuntime, useCaseOptionsOf } from "./compose.ts";
import { ConfigError, loadConfig } from "./config.ts";

/**
 * PORT=0 picks a free port: chosen here, before the configuration is read with it, so that what is
 * made of the port (the default PUBLIC_URL, with the origin checks, OAuth and webhook addresses and
 * the challenge page's link made of it) names the port the shop listens on, not 0.
 */
function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response(null) });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

function readConfig() {
  try {
    const config = loadConfig(process.env, commonPasswords);
    return config.port === 0 ? loadConfig({ ...process.env, PORT: String(freePort()) }, commonPasswords) : config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = readConfig();
const logger = createJsonLogger(config.logLevel);

/** Whatever stops the start (database unreachable or held by another process, port taken, a bad secret file) is one log line and exit code 1. */
async function failStart(error: unknown, runtime?: Runtime): Promise<never> {
  logger.error("server.start_failed", { error: messageOf(error) });
  await runtime?.close().catch(() => undefined);
  process.exit(1);
}

const portInUse = (port: number) => new Error(`Port ${port} is already in use`);

/**
 * A taken port is refused before anything is opened or written (a new DATA_DIR, its migrations and
 * demo catalog): a probe binds the port and lets it go. The real listen refuses a port taken since.
 */
function ensurePortFree(port: number) {
  if (port === 0) return;
  try {
    Bun.serve({ port, reusePort: false, fetch: () => new Response(null) }).stop(true);
  } catch (error) {
    throw (error as { code?: unknown }).code === "EADDRINUSE" ? portInUse(port) : error;
  }
}

const runtime = await Promise.resolve()
  .then(() => {
    ensurePortFree(config.port);
    if (config.metricsPort !== null) ensurePortFree(config.metricsPort);
  })
  .then(async () => buildRuntime(config, logger, config.tracing && (await startTracing(config.tracing, logger))))
  .catch((error: unknown) => failStart(error));
const boundUseCases = makeUseCases(runtime.deps, useCaseOptionsOf(config));
const useCases = runtime.tracing ? traceUseCases(boundUseCases, runtime.tracing.tracer) : boundUseCases;

async function prepareDatabase() {
  const applied = await readySchema(runtime.db, config.migrateOnStart);
  if (applied.length > 0) logger.info("database.migrated", { applied });
  // Decisions §10: a production shop never gets the demo catalog by itself.
  const seeded = runtime.embedded && config.env !== "production" ? await useCases.seedDemoCatalogIfEmpty(demoCatalog) : null;
  if (seeded) logger.info("catalog.seeded", { ...seeded });
  if (config.bootstrapAdmin) {
    const result = await useCases.ensureAdmin(SYSTEM_ACTOR, config.bootstrapAdmin);
    logger.info("admin.bootstrap", { email: config.bootstrapAdmin.email, result });
  }
}

const ROOT = join(import.meta.dir, "..");

/** The storefront and the back office (decisions §13), built once per set of sources and kept under node_modules/.cache. */
const buildWeb = () =>
  buildWebApps({
    sourceDir: join(ROOT, "web"),
    cacheDir: join(ROOT, "node_modules", ".cache", "storefront-web"),
    lockFile: join(ROOT, "package-lock.json"),
    logger,
  });

function listen(secret: string, web: Awaited<ReturnType<typeof buildWeb>>) {
  const api = createApp(useCases, {
    logger,
    clock: runtime.deps.clock,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    webhooks: observeWebhookVerifiers(webhookVerifiers(config, runtime.deps.clock), runtime.deps.metrics),
    exemptUserAgent: config.rateLimit.exemptUserAgent,
    fakeProcessor: runtime.fakeProcessor,
    observeRequest: runtime.metrics?.request,
    tracer: runtime.tracing?.tracer ?? null,
    stripePublishableKey: config.stripe?.publishableKey ?? null,
    shopTimeZone: config.shopTimeZone,
    session: {
      secret,
      cookieName: config.sessionCookieName,
      secureCookies: config.secureCookies,
      allowedOrigins: config.allowedOrigins,
    },
  });
  const app = withWebApps(api, web, { stripe: config.stripe !== null, sessionCookieName: config.sessionCookieName });
  try {
    return app.listen({
      port: config.port,
      // Elysia asks Bun for SO_REUSEPORT, with which a second server on a taken port starts and shares it.
      reusePort: false,
      // No limit of Bun's own: past it Bun answered 413 bare, without the shop's headers. Every body
      // is read by the app, which answers 413 itself from the declared length or once a chunked body
      // passes MAX_BODY_BYTES; the rest of a refused body is read and dropped by Bun, never kept.
      maxRequestBodySize: Number.POSITIVE_INFINITY,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "EADDRINUSE") throw portInUse(config.port);
    throw error;
  }
}

/** Decisions §14: Prometheus's /metrics on METRICS_PORT, apart from the API. */
function listenForMetrics() {
  if (!runtime.metrics || config.metricsPort === null) return null;
  try {
    return serveMetrics(runtime.metrics, config.metricsPort, logger);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EADDRINUSE") throw portInUse(config.metricsPort);
    throw error;
  }
}

const { app, metricsServer, secretSource } = await (async () => {
  const { secret, source } = resolveAuthSecret(config.authSecret, config.dataDir, logger);
  const [web] = await Promise.all([buildWeb(), prepareDatabase()]);
  await runtime.connect();
  return { app: listen(secret, web), metricsServer: listenForMetrics(), secretSource: source };
})().catch((error: unknown) => failStart(error, runtime));

const mailWorker = createOutboxWorker(runtime.deps, { pollIntervalMs: 2_000 });
mailWorker.start();
const housekeeping = createHousekeeping(runtime.deps, {
  intervalMs: config.housekeepingIntervalMs,
  orderPaymentTtlMinutes: config.orders.paymentTtlMinutes,
  graceMs: config.orders.graceMs,
});
housekeeping.start();
// The fake processor plays Stripe's part in delivering its events again until the shop has them.
const fakeEvents = runtime.fakeProcessor
  ? periodic(
      async () => {
        const { delivered, failed } = await redeliverFakeEvents(useCases, runtime.fakeProcessor!, config.orders.graceMs);
        if (delivered) logger.info("fake_processor.redelivered", { events: delivered });
        if (failed.length) logger.warn("fake_processor.redelivery_failed", { failed });
      },
      { intervalMs: config.housekeepingIntervalMs, logger, event: "fake_processor.redelivery_run_failed" },
    )
  : null;
fakeEvents?.start();
logger.info("server.started", {
  url: config.publicUrl,
  storefront: `${config.publicUrl}/`,
  backOffice: `${config.publicUrl}/admin`,
  docs: `${config.publicUrl}/api/docs`,
  port: app.server?.port,
  metricsPort: metricsServer?.port,
  adapters: { ...runtime.adapters, sessionSecret: secretSource },
});

/** How long requests in flight may take to finish once the shop is told to stop (SHUTDOWN_DRAIN_SECONDS). */
const DRAIN_MS = config.shutdownDrainSeconds * 1000;
/** After the drain, how long the clean-up may take before the process exits all the same. */
const CLEANUP_MS = 5_000;
let stopping = false;

/**
 * SIGTERM (or SIGINT): stop accepting connections and the outbox worker, let the requests (and the
 * mail) in flight finish (up to SHUTDOWN_DRAIN_SECONDS, then they are cut), stop the sweeper (and the
 * fake processor's redelivery), and close the database pool and Redis. A clean-up that hangs (a request cut while it waits on a database lock
 * keeps its connection) does not keep the process: 5 s after the drain it exits 1 all the same.
 */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("server.stopping", { signal });
  setTimeout(() => {
    logger.error("server.stop_timeout", { afterMs: DRAIN_MS + CLEANUP_MS });
    process.exit(1);
  }, DRAIN_MS + CLEANUP_MS).unref();
  // The outbox takes no more mail from now; its send in flight has the drain's time to finish, and is
  // cut then (a hung mail server held every stop to its timeout and exit 1: found by an attack).
  const mailStopped = mailWorker.stop(DRAIN_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drained = await Promise.race([app.stop().then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DRAIN_MS)))]);
  clearTimeout(timer);
  if (!drained) {
    logger.warn("server.drain_timeout", { afterMs: DRAIN_MS });
    await app.stop(true);
  }
  await mailStopped;
  await housekeeping.stop();
  await fakeEvents?.stop();
  await metricsServer?.stop(true);
  await runtime.close();
  logger.info("server.stopped", { signal });
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
