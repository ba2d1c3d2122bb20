import { makeUseCases } from "../../src/application/use-cases.ts";
import { type AppOptions, createApp } from "../../src/adapters/http/app.ts";
import { type Logger, silentLogger } from "../../src/adapters/log.ts";
import type { Deps, Repositories } from "../../src/application/ports/index.ts";
import { type MemoryDeps, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import type { FakeProcessor } from "../../src/adapters/payments/fake-processor.ts";
import type { WebhookVerifier } from "../../src/application/events/webhook-event.ts";
import type { WebhookProvider } from "../../src/adapters/events/index.ts";
import { stripeWebhookVerifier } from "../../src/adapters/events/stripe.ts";
import { systemClock } from "../../src/adapters/system.ts";

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

type Handler = { handle(request: Request): Promise<Response> };

/** Sends one request through app.handle; JSON bodies are encoded and decoded. */
export async function call<T = any>(app: Handler, method: string, path: string, options: CallOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.includes("json");
  return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
}

export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";
export const TEST_PUBLIC_URL = "http://localhost:3000";
export const TEST_WEBHOOK_SECRET = "whsec_test_storefront_webhooks";
export const SESSION_COOKIE = "storefront.session-token";

export interface TestAppOptions {
  trustProxy?: boolean;
  corsOrigins?: string[];
  publicUrl?: string;
  logger?: Logger;
  stripeWebhookSecret?: string | null;
  /** Verifiers of the other providers (off unless a test gives one). */
  webhooks?: Partial<Record<WebhookProvider, WebhookVerifier | null>>;
  /** Off (max and passwordMax 0) unless a test is about the limiter: other tests send far more than 100 requests to an endpoint. */
  rateLimit?: { max: number; windowSeconds: number; passwordMax?: number };
  exemptUserAgent?: string;
  /** SHOP_TIMEZONE (UTC unless given). */
  shopTimeZone?: string;
  /** Told of every answered request, as the metrics are with METRICS_PORT. */
  observeRequest?: AppOptions["observeRequest"];
  /** How long sessions, accounts and permissions read are trusted (30 s unless given; 0 reads them on every request). */
  sessionCacheSeconds?: number;
  /** STRIPE_PUBLISHABLE_KEY, for a shop whose payments are not the fake processor's. */
  stripePublishableKey?: string | null;
  /** Where the requests' server spans go, as with OTEL_EXPORTER_OTLP_ENDPOINT (none unless given). */
  tracer?: AppOptions["tracer"];
}

/** The whole HTTP app, over in-memory fakes unless other deps are given. */
export function createTestApp<D extends Deps & { repos: Repositories } = MemoryDeps>(
  deps: D = createMemoryDeps() as unknown as D,
  options: TestAppOptions = {},
) {
  const publicUrl = options.publicUrl ?? TEST_PUBLIC_URL;
  const useCases = makeUseCases(deps, {
    publicUrl: TEST_PUBLIC_URL,
    rateLimit: { max: 0, passwordMax: 0, windowSeconds: 900, ...options.rateLimit },
    shopTimeZone: options.shopTimeZone,
    sessionCacheSeconds: options.sessionCacheSeconds,
  });
  const app = createApp(useCases, {
    logger: options.logger ?? silentLogger,
    clock: deps.clock,
    publicUrl,
    trustProxy: options.trustProxy ?? true,
    corsOrigins: options.corsOrigins ?? [],
    exemptUserAgent: options.exemptUserAgent ?? "StorefrontMobileApp",
    // As in the shop: the challenge page only while the fake processor takes the payments.
    fakeProcessor: "processor" in deps && deps.payments === deps.processor ? (deps.processor as FakeProcessor) : null,
    stripePublishableKey: options.stripePublishableKey ?? null,
    shopTimeZone: options.shopTimeZone,
    webhooks: {
      stripe: stripeWebhookVerifier(options.stripeWebhookSecret === undefined ? TEST_WEBHOOK_SECRET : options.stripeWebhookSecret, systemClock),
      paypal: null,
      square: null,
      easypost: null,
      resend: null,
      ...options.webhooks,
    },
    observeRequest: options.observeRequest,
    tracer: options.tracer,
    session: {
      secret: TEST_SECRET,
      cookieName: SESSION_COOKIE,
      secureCookies: publicUrl.startsWith("https://"),
      allowedOrigins: [new URL(publicUrl).origin, ...(options.corsOrigins ?? [])],
    },
  });
  return { app, deps, useCases, call: <T = any>(method: string, path: string, options?: CallOptions) => call<T>(app, method, path, options) };
}
export type TestApp = ReturnType<typeof createTestApp<MemoryDeps>>;
