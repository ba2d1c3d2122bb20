import type { Tracer } from "@opentelemetry/api";
import { Elysia } from "elysia";
import { z } from "zod";
import type { Clock, Logger } from "../../application/ports/system.ts";
import type { UseCases } from "../../application/use-cases.ts";
import type { FakeProcessor } from "../payments/fake-processor.ts";
import { type AuthSettings, hasLiveSession, tokenSubject } from "./auth.ts";
import { apiDocs } from "./docs/index.ts";
import { idempotencyPlugin } from "./idempotency.ts";
import { fetchMetadata } from "./plumbing/fetch-metadata.ts";
import { bodyReading } from "./plumbing/body.ts";
import { cors } from "./plumbing/cors.ts";
import { errorMapper } from "./plumbing/error-mapper.ts";
import { fieldMessage } from "./plumbing/field-messages.ts";
import { rateLimit } from "./plumbing/rate-limit.ts";
import { ANY_HOSTNAME, requestContext } from "./plumbing/request-context.ts";
import { requestLog } from "./plumbing/request-log.ts";
import { type RequestObserver, requestMetrics } from "./plumbing/request-metrics.ts";
import { routeTable } from "./plumbing/route-table.ts";
import { serverSpans } from "./plumbing/server-spans.ts";
import { aboutRoutes } from "./routes/about.ts";
import { adminProductsRoutes } from "./routes/admin-products.ts";
import { adminAuditRoutes } from "./routes/admin-audit.ts";
import { adminUsersRoutes } from "./routes/admin-users.ts";
import { adminReportRoutes } from "./routes/admin-reports.ts";
import { adminOrdersRoutes } from "./routes/admin-orders.ts";
import { authRoutes } from "./routes/auth.ts";
import { fakeProcessorRoutes } from "./routes/fake-processor.ts";
import { cartRoutes } from "./routes/cart.ts";
import { healthRoutes } from "./routes/health.ts";
import { locationRoutes } from "./routes/locations.ts";
import { orderRoutes } from "./routes/orders.ts";
import { paymentRoutes } from "./routes/payment.ts";
import { productRoutes } from "./routes/products.ts";
import { userRoutes } from "./routes/users.ts";
import { type WebhookSettings, webhookRoutes } from "./routes/webhooks.ts";
import { createSessionTokens } from "./session.ts";

export interface AppOptions {
  logger: Logger;
  /** The clock the use cases run on: session tokens are stamped and judged by it. */
  clock: Clock;
  publicUrl: string;
  /** Take the client's address from X-Forwarded-For (behind a proxy that sets it). */
  trustProxy: boolean;
  /** Other origins whose pages may call the API with credentials (CORS_ORIGINS). */
  corsOrigins: readonly string[];
  session: Omit<AuthSettings, "tokens"> & { secret: string };
  webhooks: WebhookSettings;
  /** RATE_LIMIT_EXEMPT_USER_AGENT. */
  exemptUserAgent: string;
  /** The built-in fake processor, when it takes the payments: its 3-D Secure challenge page is served (never with Stripe). */
  fakeProcessor?: FakeProcessor | null;
  /** With METRICS_PORT: told of every answered request (without it, requests are not measured at all). */
  observeRequest?: RequestObserver;
  /** With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), a server span for every request. */
  tracer?: Tracer | null;
  /** With Stripe: the publishable key the storefront's payment step loads Stripe.js with (STRIPE_PUBLISHABLE_KEY). */
  stripePublishableKey?: string | null;
  /** SHOP_TIMEZONE: whose days a date in the back office's filters means (UTC when absent). */
  shopTimeZone?: string;
}

export function createApp(
  useCases: UseCases,
  {
    logger,
    clock,
    publicUrl,
    trustProxy,
    corsOrigins,
    session,
    webhooks,
    exemptUserAgent,
    fakeProcessor,
    tracer,
    observeRequest,
    stripePublishableKey = null,
    shopTimeZone = "UTC",
  }: AppOptions,
) {
  // zod's settings are the process's: the API's own words for a field's issues (fieldMessage).
  z.config({ customError: fieldMessage });
  const auth: AuthSettings = { ...session, tokens: createSessionTokens(session.secret, clock) };
  const idempotency = idempotencyPlugin(useCases, logger);
  const routes = routeTable(() => app.routes);
  const app = new Elysia({ prefix: "/api", handler: ANY_HOSTNAME })
    .use(
      requestContext({
        trustProxy,
        https: publicUrl.startsWith("https://"),
        sessionCookieName: session.cookieName,
        dispatch: (request): Promise<Response> => app.handle(request),
      }),
    )
    .use(serverSpans(tracer ?? null, routes))
    .use(cors(corsOrigins, routes.methodsAt))
    .use(rateLimit(useCases, routes, { exemptUserAgent, hasLiveSession: hasLiveSession(useCases, auth) }))
    .use(fetchMetadata())
    .use(bodyReading(routes))
    .use(errorMapper(logger, routes))
    .use(requestLog(logger, tokenSubject(auth)))
    .use(observeRequest ? requestMetrics(observeRequest, routes) : new Elysia({ name: "plumbing.request-metrics" }))
    .use(apiDocs({ publicUrl, cookieName: session.cookieName }))
    .use(aboutRoutes(publicUrl))
    .use(healthRoutes(useCases, logger))
    .use(authRoutes(useCases, { ...auth, publicUrl }))
    .use(userRoutes(useCases, auth))
    .use(productRoutes(useCases, auth))
    .use(adminProductsRoutes(useCases, auth))
    .use(cartRoutes(useCases, auth))
    .use(orderRoutes(useCases, auth, idempotency))
    .use(paymentRoutes(useCases, auth, idempotency, fakeProcessor ? { processor: "fake" } : { processor: "stripe", publishableKey: stripePublishableKey }))
    .use(webhookRoutes(useCases, webhooks))
    .use(fakeProcessor ? fakeProcessorRoutes(useCases, fakeProcessor) : new Elysia({ name: "routes.fake-processor" }))
    .use(locationRoutes(useCases))
    .use(adminUsersRoutes(useCases, auth, logger, shopTimeZone, clock))
    .use(adminAuditRoutes(useCases, auth, shopTimeZone))
    .use(adminReportRoutes(useCases, auth, shopTimeZone, clock))
    .use(adminOrdersRoutes(useCases, auth, logger, shopTimeZone, clock));
  return app;
}

export type App = ReturnType<typeof createApp>;
