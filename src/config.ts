import { join } from "node:path";
import { z } from "zod";
import { ORDER_PREFIX_PATTERN } from "./domain/order-number.ts";
import { PAYMENT_ATTEMPT_ABANDONED_MS } from "./domain/payment.ts";
import { DEFAULT_LOW_STOCK_THRESHOLD, MAX_INVENTORY } from "./domain/product.ts";
import { canonicalTimeZone } from "./domain/time-zone.ts";
import { passwordProblem } from "./domain/user.ts";
import { DEFAULT_RATE_LIMIT } from "./application/limits/rate-limit.ts";
import { DEFAULT_ORDER_SETTINGS, type OrderSettings } from "./application/orders/settings.ts";
import type { CommonPasswords } from "./application/ports/identity.ts";

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
/**
 * A whole number as people write one, in digits: what Number() also takes (`1e3`, `4340.0`, `0x10`)
 * is refused as not a whole number (PORT=1e3 started the shop on port 1000: found by an audit).
 */
const whole = <T extends z.ZodType>(number: T) =>
  z.preprocess((value) => (typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value), number);
/** A whole number of seconds from 1 to `max`, each refusal saying so in seconds (`tooMany`: why not more). */
const seconds = (max: number, tooMany: string) =>
  whole(
    z.number({ error: "must be a whole number of seconds" }).int("must be a whole number of seconds").min(1, "must be at least 1 second").max(max, tooMany),
  );
/** A share from 0 to 1 written as a plain decimal (`0.1`, `.5`, `1`): "must be a whole number" would mislead here. */
const share = () =>
  z.preprocess(
    (value) => (typeof value === "string" && /^\s*(\d+\.?\d*|\.\d+)\s*$/.test(value) ? Number(value) : value),
    z
      .number({
        error: (issue) => (issue.code === "invalid_type" ? `must be a number from 0 to 1 such as 0.1, not ${JSON.stringify(issue.input)}` : undefined),
      })
      .min(0)
      .max(1),
  );
/** A URL with one of these schemes; the message names them (and never echoes the value: a URL may hold a password). */
const urlOf = (...schemes: string[]) =>
  z.url({
    protocol: new RegExp(`^(${schemes.join("|")})$`),
    error: `must be a ${schemes
      .map((scheme) => `${scheme}://`)
      .join(", ")
      .replace(/, ([^,]+)$/, " or $1")} URL`,
  });

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: whole(z.number().int().min(0).max(65535)).default(3000),
  // Decisions §14: Prometheus's /metrics on a port of its own, never the API's; unset, no metrics.
  METRICS_PORT: whole(z.number().int().min(0).max(65535)).optional(),
  PUBLIC_URL: urlOf("http", "https").optional(),
  DATABASE_URL: z
    .string()
    // A URL that does not parse (a port that is no number, say) is refused here, naming the variable,
    // not at the first connection with a bare "Invalid URL" (found by an attack).
    .refine((v) => (/^postgres(ql)?:\/\//.test(v) && URL.canParse(v)) || v === "pglite://memory" || (/^pglite:\/\/\/./.test(v) && URL.canParse(v)), {
      message: "must be postgres://…, pglite:///absolute/path or pglite://memory",
    })
    .optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_POOL_MAX: whole(z.number().int().min(1).max(200)).default(10),
  // libpq's session settings (`-c name=value …`), applied after the shop's own (database.ts).
  PGOPTIONS: z.string().optional(),
  TRUST_PROXY: flag.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // OpenTelemetry's own variables, read as its specification says (decisions §14): tracing is on
  // when an endpoint is set, and nothing is set up or sent without one.
  OTEL_EXPORTER_OTLP_ENDPOINT: urlOf("http", "https").optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: urlOf("http", "https").optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("storefront"),
  OTEL_TRACES_SAMPLER: z
    .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
    .default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: share().default(1),
  AUTH_SECRET: z
    .string()
    .min(32, "must be at least 32 characters")
    // Forty spaces, or one letter 32 times, are long and no secret (a hex key has 16 distinct characters).
    .refine((secret) => new Set(secret.replace(/\s/g, "")).size >= 8, "must be random: at least 8 different characters besides spaces")
    .optional(),
  SESSION_COOKIE_NAME: z
    .string()
    .regex(/^[\w.-]+$/, "must be a plain cookie name")
    .default("storefront.session-token"),
  CORS_ORIGINS: z.string().optional(),
  SMTP_URL: urlOf("smtp", "smtps").optional(),
  MAIL_FROM: z.string().min(3).default("Storefront <no-reply@storefront.local>"),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, "must be a Stripe secret key (sk_test_…, sk_live_… or a restricted rk_…)")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be a webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_API_BASE: urlOf("http", "https").optional(),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_(test|live)_\w+$/, "must be a Stripe publishable key (pk_test_… or pk_live_…)")
    .optional(),
  // Three tries of this must end within the grace time's least (PAYMENT_ATTEMPT_ABANDONED_MS, 120 s).
  STRIPE_TIMEOUT_SECONDS: seconds(35, "must be at most 35 seconds (three tries must end within the payments' grace time of 2 minutes)").default(20),
  MIGRATE_ON_START: flag.default(true),
  SESSION_CACHE_SECONDS: whole(z.number().int().min(0).max(30)).default(30),
  SHUTDOWN_DRAIN_SECONDS: whole(z.number().int().min(1).max(300)).default(10),
  EASYPOST_WEBHOOK_SECRET: z.string().min(1).optional(),
  RESEND_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]+$/, "must be a Svix signing secret (whsec_…)")
    .optional(),
  SQUARE_WEBHOOK_SIGNATURE_KEY: z.string().min(1).optional(),
  SQUARE_WEBHOOK_URL: urlOf("http", "https").optional(),
  // Accepted, and no longer needed: PayPal's deliveries are verified offline (decisions §15), with PAYPAL_WEBHOOK_ID alone.
  PAYPAL_CLIENT_ID: z.string().min(1).optional(),
  PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
  PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
  // bcrypt's cost (a hash records its own, so one made at another cost still verifies). Production
  // takes no less than 12; a development shop or a test may go as low as 4 to save time.
  BCRYPT_COST: whole(z.number().int().min(4).max(15)).default(12),
  REDIS_URL: urlOf("redis", "rediss", "valkey", "valkeys").optional(),
  // Decisions §14: several shops may share one Redis, each under its own prefix.
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\x21-\x7e]{1,64}$/, "must be 1 to 64 printable characters without spaces")
    .default("storefront:"),
  RATE_LIMIT_MAX: whole(z.number().int().min(0).max(1_000_000_000)).default(DEFAULT_RATE_LIMIT.max),
  RATE_LIMIT_WINDOW_SECONDS: whole(z.number().int().min(1).max(86_400)).default(DEFAULT_RATE_LIMIT.windowSeconds),
  PASSWORD_RATE_LIMIT_MAX: whole(z.number().int().min(0).max(1_000_000_000)).default(DEFAULT_RATE_LIMIT.passwordMax),
  RATE_LIMIT_EXEMPT_USER_AGENT: z.string().min(1).max(200).default("StorefrontMobileApp"),
  ORDER_NUMBER_PREFIX: z.string().regex(ORDER_PREFIX_PATTERN, "must be 1 to 10 capital letters or digits").default(DEFAULT_ORDER_SETTINGS.numberPrefix),
  ORDER_PAYMENT_TTL_MINUTES: whole(z.number().int().min(1).max(10_080)).default(DEFAULT_ORDER_SETTINGS.paymentTtlMinutes),
  MAX_UNPAID_ORDERS: whole(z.number().int().min(1, "must be at least 1 (every checkout makes an unpaid order, so 0 would refuse them all)").max(1000)).default(
    DEFAULT_ORDER_SETTINGS.maxUnpaidOrders,
  ),
  HOUSEKEEPING_INTERVAL_SECONDS: seconds(3_600, "must be at most 3600 seconds (an hour)").default(60),
  HOUSEKEEPING_GRACE_SECONDS: seconds(3_600, "must be at most 3600 seconds (an hour)").default(DEFAULT_ORDER_SETTINGS.graceMs / 1000),
  // The back office's low stock (decisions §12): at or under this many units.
  LOW_STOCK_THRESHOLD: whole(z.number().int().min(0).max(MAX_INVENTORY)).default(DEFAULT_LOW_STOCK_THRESHOLD),
  // The sales report's days, weeks and months (decisions §12); a zone this runtime does not know would fail every report.
  SHOP_TIMEZONE: z
    .string()
    .transform((name, ctx) => {
      const zone = canonicalTimeZone(name);
      if (zone) return zone;
      ctx.addIssue({ code: "custom", message: `must be an IANA time zone name such as America/New_York or Europe/Paris, not ${JSON.stringify(name)}` });
      return z.NEVER;
    })
    .default("UTC"),
  BOOTSTRAP_ADMIN_EMAIL: z.email().optional(),
  /** Held to the rules of every password in loadConfig, which is handed the common-password list. */
  BOOTSTRAP_ADMIN_PASSWORD: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  GITHUB_CLIENT_ID: z.string().optional(),
  GITHUB_CLIENT_SECRET: z.string().optional(),
  FACEBOOK_CLIENT_ID: z.string().optional(),
  FACEBOOK_CLIENT_SECRET: z.string().optional(),
  APPLE_CLIENT_ID: z.string().optional(),
  APPLE_TEAM_ID: z.string().optional(),
  APPLE_KEY_ID: z.string().optional(),
  APPLE_PRIVATE_KEY: z.string().optional(),
});

type Env = z.infer<typeof envSchema>;

// The settings below are the ones the adapters declare (identity/, db/database.ts, events/index.ts),
// restated: config imports no adapter, and where compose.ts and main.ts hand them over the compiler
// checks that what config produces is what each adapter takes.

export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
}

export interface AppleClientConfig {
  clientId: string;
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"); "\n" escapes are accepted. */
  privateKey: string;
}

export interface OAuthConfig {
  google?: OAuthClientConfig;
  github?: OAuthClientConfig;
  facebook?: OAuthClientConfig;
  apple?: AppleClientConfig;
}

export type DatabaseTarget =
  /** `options`: the operator's session settings (PGOPTIONS), after the shop's own, so they win. */
  | { kind: "postgres"; url: string; poolMax?: number; options?: string }
  /**
   * `directory` null: in memory. `label` names it for people (DATA_DIR, or the URL). `privateDir`:
   * DATA_DIR, when the database lives in it (kept 0700); null for a directory named by the URL.
   */
  | { kind: "pglite"; directory: string | null; label: string; privateDir: string | null };

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  /** METRICS_PORT: where GET /metrics answers; null: no metrics are kept. */
  metricsPort: number | null;
  publicUrl: string;
  database: DatabaseTarget;
  dataDir: string;
  trustProxy: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Null: no OTLP endpoint, no tracing. `sampler.ratio`: the share of new traces kept; `parentBased`: a caller's traceparent decides instead. */
  tracing: { tracesUrl: string; serviceName: string; sampler: { ratio: number; parentBased: boolean } } | null;
  /** Null: generate one and keep it in DATA_DIR (never in production). */
  authSecret: string | null;
  /** With `__Secure-` in front when PUBLIC_URL is https. */
  sessionCookieName: string;
  secureCookies: boolean;
  /** Origins allowed to make cookie-authenticated changes, PUBLIC_URL's included. */
  allowedOrigins: string[];
  /** CORS_ORIGINS: other origins whose pages may call the API with credentials. */
  corsOrigins: string[];
  mail: { smtpUrl: string | null; from: string };
  /**
   * Null: the built-in fake processor takes payments and tax. `timeoutMs`: how long one try of a call
   * waits for Stripe (STRIPE_TIMEOUT_SECONDS). `publishableKey`: for Stripe.js on the storefront's
   * payment step (null: the storefront cannot take cards).
   */
  stripe: { secretKey: string; apiBase: string | null; timeoutMs: number; publishableKey: string | null } | null;
  /** Null: POST /api/webhooks/stripe answers 503. */
  stripeWebhookSecret: string | null;
  /** Each provider's webhook settings (decisions §11); a null one answers 503. */
  webhooks: {
    easypostSecret: string | null;
    resendSecret: string | null;
    square: { signatureKey: string; notificationUrl: string } | null;
    paypal: { webhookId: string } | null;
  };
  /** False: the schema is `db:migrate`'s business (several instances); a start on a schema behind the code stops. */
  migrateOnStart: boolean;
  /** How long an instance trusts a session, account and permissions it has read (decisions §5: at most 30 s). */
  sessionCacheSeconds: number;
  /** Once told to stop, how long requests in flight may take before they are cut. */
  shutdownDrainSeconds: number;
  /** Null: counters (rate limits, sign-in lockout) in this process's memory. */
  /** BCRYPT_COST: bcrypt's cost for new hashes. */
  bcryptCost: number;
  redisUrl: string | null;
  /** Where this shop's keys live in Redis (REDIS_KEY_PREFIX), so shops sharing one Redis share nothing else. */
  redisKeyPrefix: string;
  /** max 0: no limit per endpoint; passwordMax 0: none on the password routes together (each is off on its own). */
  rateLimit: { max: number; passwordMax: number; windowSeconds: number; exemptUserAgent: string };
  orders: OrderSettings;
  /** How often housekeeping runs (HOUSEKEEPING_INTERVAL_SECONDS): expiry, what a crash left, purges. */
  housekeepingIntervalMs: number;
  /** LOW_STOCK_THRESHOLD: the back office's `lowStock=true` lists products with this many units or fewer. */
  lowStockThreshold: number;
  /** SHOP_TIMEZONE, canonical: the zone the sales report's periods are in. */
  shopTimeZone: string;
  bootstrapAdmin: { email: string; password: string } | null;
  oauth: OAuthConfig;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the environment; an unset variable and an empty one mean the same. The common-password
 * list is an adapter (a dictionary loaded from a package), so the caller hands it in.
 */
export function loadConfig(env: Record<string, string | undefined>, commonPasswords: CommonPasswords): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema
    .extend({ BOOTSTRAP_ADMIN_PASSWORD: newPassword(commonPasswords).optional() })
    .safeParse(present, { error: (issue) => explain(issue, present) });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const problems = crossFieldProblems(e);
  if (problems.length) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const secure = publicUrl.startsWith("https://");
  const corsOrigins = e.CORS_ORIGINS?.split(",").map((o) => new URL(o.trim()).origin) ?? [];
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    metricsPort: e.METRICS_PORT ?? null,
    publicUrl,
    database: databaseTarget(e),
    dataDir: e.DATA_DIR,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    tracing: tracingConfig(e),
    authSecret: e.AUTH_SECRET ?? null,
    sessionCookieName: secure ? `__Secure-${e.SESSION_COOKIE_NAME}` : e.SESSION_COOKIE_NAME,
    secureCookies: secure,
    allowedOrigins: [new URL(publicUrl).origin, ...corsOrigins],
    corsOrigins,
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM },
    stripe: e.STRIPE_SECRET_KEY
      ? {
          secretKey: e.STRIPE_SECRET_KEY,
          apiBase: e.STRIPE_API_BASE ?? null,
          timeoutMs: e.STRIPE_TIMEOUT_SECONDS * 1000,
          publishableKey: e.STRIPE_PUBLISHABLE_KEY ?? null,
        }
      : null,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null,
    webhooks: {
      easypostSecret: e.EASYPOST_WEBHOOK_SECRET ?? null,
      resendSecret: e.RESEND_WEBHOOK_SECRET ?? null,
      square: e.SQUARE_WEBHOOK_SIGNATURE_KEY
        ? { signatureKey: e.SQUARE_WEBHOOK_SIGNATURE_KEY, notificationUrl: e.SQUARE_WEBHOOK_URL ?? `${publicUrl}/api/webhooks/square` }
        : null,
      paypal: e.PAYPAL_WEBHOOK_ID ? { webhookId: e.PAYPAL_WEBHOOK_ID } : null,
    },
    migrateOnStart: e.MIGRATE_ON_START,
    sessionCacheSeconds: e.SESSION_CACHE_SECONDS,
    shutdownDrainSeconds: e.SHUTDOWN_DRAIN_SECONDS,
    bcryptCost: e.BCRYPT_COST,
    redisUrl: e.REDIS_URL ?? null,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    rateLimit: {
      max: e.RATE_LIMIT_MAX,
      passwordMax: e.PASSWORD_RATE_LIMIT_MAX,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      exemptUserAgent: e.RATE_LIMIT_EXEMPT_USER_AGENT,
    },
    orders: {
      numberPrefix: e.ORDER_NUMBER_PREFIX,
      paymentTtlMinutes: e.ORDER_PAYMENT_TTL_MINUTES,
      maxUnpaidOrders: e.MAX_UNPAID_ORDERS,
      graceMs: e.HOUSEKEEPING_GRACE_SECONDS * 1000,
    },
    housekeepingIntervalMs: e.HOUSEKEEPING_INTERVAL_SECONDS * 1000,
    lowStockThreshold: e.LOW_STOCK_THRESHOLD,
    shopTimeZone: e.SHOP_TIMEZONE,
    bootstrapAdmin: e.BOOTSTRAP_ADMIN_EMAIL && e.BOOTSTRAP_ADMIN_PASSWORD ? { email: e.BOOTSTRAP_ADMIN_EMAIL, password: e.BOOTSTRAP_ADMIN_PASSWORD } : null,
    oauth: oauthConfig(e),
  };
}

/**
 * Zod's own words for what a person typed into a variable, made plain: `PORT=abc` is "must be a
 * whole number, not "abc"" (zod would say it received NaN). Numbers and choices quote what was
 * given; nothing else is echoed, since a value may be a secret.
 */
function explain(issue: z.core.$ZodRawIssue, given: Record<string, string | undefined>): string | undefined {
  const value = given[String(issue.path?.[0])];
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "number" || issue.expected === "int" ? `must be a whole number, not ${JSON.stringify(value)}` : undefined;
    case "too_small":
      return issue.origin === "number" ? `must be at least ${issue.minimum}, not ${value}` : undefined;
    case "too_big":
      return issue.origin === "number" ? `must be at most ${issue.maximum}, not ${value}` : undefined;
    case "invalid_value":
      return `must be one of ${issue.values.join(", ")}, not ${JSON.stringify(value)}`;
    default:
      return undefined;
  }
}

const newPassword = (commonPasswords: CommonPasswords) =>
  z.string().superRefine((password, ctx) => {
    const problem = passwordProblem(password, (lowercased) => commonPasswords.includes(lowercased));
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

function crossFieldProblems(e: Env): string[] {
  const problems: string[] = [];
  if (e.NODE_ENV === "production" && !e.AUTH_SECRET) problems.push("AUTH_SECRET: is required when NODE_ENV=production");
  if (e.NODE_ENV === "production" && e.BCRYPT_COST < 12) problems.push(`BCRYPT_COST: must be at least 12 when NODE_ENV=production, not ${e.BCRYPT_COST}`);
  if (e.NODE_ENV === "production" && (!e.DATABASE_URL || e.DATABASE_URL === "pglite://memory")) {
    problems.push(
      "DATABASE_URL: is required when NODE_ENV=production (postgres://…, or pglite:///absolute/path for a deliberate single-process embedded shop)",
    );
  }
  if (e.STRIPE_PUBLISHABLE_KEY && !e.STRIPE_SECRET_KEY)
    problems.push("STRIPE_PUBLISHABLE_KEY: needs STRIPE_SECRET_KEY (without it the built-in fake processor is used)");
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT)
    problems.push(`METRICS_PORT: must differ from PORT (${e.PORT}): the metrics are never served on the API's port`);
  if (e.STRIPE_API_BASE && !e.STRIPE_SECRET_KEY) problems.push("STRIPE_API_BASE: needs STRIPE_SECRET_KEY (without it the built-in fake processor is used)");
  if (e.STRIPE_API_BASE && e.STRIPE_SECRET_KEY?.includes("_live_")) problems.push("STRIPE_API_BASE: a live key is never sent to another host");
  // The fake processor takes Stripe's test cards as payment: a production shop would give its goods away.
  if (e.NODE_ENV === "production" && !e.STRIPE_SECRET_KEY)
    problems.push("STRIPE_SECRET_KEY: is required when NODE_ENV=production (the built-in fake processor accepts test cards)");
  // A payment may wait on the processor for over a minute (its retries): a shorter grace would take over attempts still running.
  if (e.NODE_ENV === "production" && e.HOUSEKEEPING_GRACE_SECONDS * 1000 < PAYMENT_ATTEMPT_ABANDONED_MS) {
    problems.push(
      `HOUSEKEEPING_GRACE_SECONDS: must be at least ${PAYMENT_ATTEMPT_ABANDONED_MS / 1000} when NODE_ENV=production (a payment may wait on the processor for over a minute)`,
    );
  }
  if (Boolean(e.BOOTSTRAP_ADMIN_EMAIL) !== Boolean(e.BOOTSTRAP_ADMIN_PASSWORD)) {
    problems.push("BOOTSTRAP_ADMIN_EMAIL: needs BOOTSTRAP_ADMIN_PASSWORD too (set both or neither)");
  }
  for (const origin of e.CORS_ORIGINS?.split(",").map((o) => o.trim()) ?? []) {
    // "localhost:5173" parses as a URL of scheme "localhost:" whose origin is "null", the one pages
    // in sandboxes and data: URLs send: trusting it would trust them all.
    const url = URL.parse(origin);
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
      problems.push(`CORS_ORIGINS: "${origin}" is not an http(s) origin such as https://shop.example.com`);
  }
  const groups: Record<string, (keyof Env)[]> = {
    GOOGLE: ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
    GITHUB: ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"],
    FACEBOOK: ["FACEBOOK_CLIENT_ID", "FACEBOOK_CLIENT_SECRET"],
    APPLE: ["APPLE_CLIENT_ID", "APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY"],
  };
  if (e.SQUARE_WEBHOOK_URL && !e.SQUARE_WEBHOOK_SIGNATURE_KEY) problems.push("SQUARE_WEBHOOK_URL: needs SQUARE_WEBHOOK_SIGNATURE_KEY");
  for (const names of Object.values(groups)) {
    const set = names.filter((n) => e[n]);
    if (set.length > 0 && set.length < names.length) {
      problems.push(`${names.find((n) => !e[n])}: is needed with ${set.join(", ")}`);
    }
  }
  return problems;
}

function databaseTarget(e: Env): DatabaseTarget {
  const url = e.DATABASE_URL;
  if (!url) return { kind: "pglite", directory: join(e.DATA_DIR, "pglite"), label: `DATA_DIR ${e.DATA_DIR}`, privateDir: e.DATA_DIR };
  if (url === "pglite://memory") return { kind: "pglite", directory: null, label: url, privateDir: null };
  if (url.startsWith("pglite://")) return { kind: "pglite", directory: decodeURIComponent(new URL(url).pathname), label: url, privateDir: null };
  return { kind: "postgres", url, poolMax: e.DATABASE_POOL_MAX, options: e.PGOPTIONS };
}

/** The specification's rule: the traces endpoint as given, or the general one with `v1/traces` after it. */
function tracingConfig(e: Env): Config["tracing"] {
  const general = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (general ? `${general.replace(/\/?$/, "/")}v1/traces` : null);
  if (!tracesUrl) return null;
  const sampler = e.OTEL_TRACES_SAMPLER;
  const ratio = sampler.endsWith("always_on") ? 1 : sampler.endsWith("always_off") ? 0 : e.OTEL_TRACES_SAMPLER_ARG;
  return { tracesUrl, serviceName: e.OTEL_SERVICE_NAME, sampler: { ratio, parentBased: sampler.startsWith("parentbased_") } };
}

function oauthConfig(e: Env): OAuthConfig {
  const client = (clientId?: string, clientSecret?: string) => (clientId && clientSecret ? { clientId, clientSecret } : undefined);
  return {
    google: client(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET),
    github: client(e.GITHUB_CLIENT_ID, e.GITHUB_CLIENT_SECRET),
    facebook: client(e.FACEBOOK_CLIENT_ID, e.FACEBOOK_CLIENT_SECRET),
    apple:
      e.APPLE_CLIENT_ID && e.APPLE_TEAM_ID && e.APPLE_KEY_ID && e.APPLE_PRIVATE_KEY
        ? { clientId: e.APPLE_CLIENT_ID, teamId: e.APPLE_TEAM_ID, keyId: e.APPLE_KEY_ID, privateKey: e.APPLE_PRIVATE_KEY.replaceAll("\\n", "\n") }
        : undefined,
  };
}
