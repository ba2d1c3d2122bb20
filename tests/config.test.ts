import { describe, expect, test } from "bun:test";
import { commonPasswords } from "../src/adapters/crypto/common-passwords.ts";
import { loadConfig as loadConfigWith } from "../src/config.ts";

const loadConfig = (env: Record<string, string | undefined>) => loadConfigWith(env, commonPasswords);
const PRODUCTION_SECRET = "q7Vd-production-session-key-9Xw2LmZt";

describe("configuration", () => {
  test("nothing configured means the embedded database in ./data on port 3000", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe("http://localhost:3000");
    expect(config.database).toEqual({ kind: "pglite", directory: "data/pglite", label: "DATA_DIR ./data", privateDir: "./data" });
    expect(config.trustProxy).toBe(false);
  });

  test("DATABASE_URL picks PostgreSQL or an in-memory embedded database; empty means unset", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/db" }).database).toEqual({ kind: "postgres", url: "postgres://u@h:5432/db", poolMax: 10 });
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/db", DATABASE_POOL_MAX: "4" }).database).toMatchObject({ poolMax: 4 });
    expect(loadConfig({ DATABASE_URL: "postgres://u@h:5432/db", PGOPTIONS: "-c work_mem=64MB" }).database).toMatchObject({ options: "-c work_mem=64MB" });
    expect(loadConfig({ DATABASE_URL: "pglite://memory" }).database).toEqual({ kind: "pglite", directory: null, label: "pglite://memory", privateDir: null });
    expect(loadConfig({ DATABASE_URL: "", DATA_DIR: "/tmp/x" }).database).toEqual({
      kind: "pglite",
      directory: "/tmp/x/pglite",
      label: "DATA_DIR /tmp/x",
      privateDir: "/tmp/x",
    });
    expect(loadConfig({ DATABASE_URL: "pglite:///srv/shop/db" }).database).toEqual({
      kind: "pglite",
      directory: "/srv/shop/db",
      label: "pglite:///srv/shop/db",
      privateDir: null,
    });
  });

  test.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_POOL_MAX", "0"],
    ["DATABASE_URL", "mysql://localhost/db"],
    ["PUBLIC_URL", "not a url"],
    ["TRUST_PROXY", "yes please"],
    ["NODE_ENV", "staging"],
    ["BOOTSTRAP_ADMIN_PASSWORD", "éééé"],
    ["BOOTSTRAP_ADMIN_PASSWORD", "é".repeat(37)],
    ["BOOTSTRAP_ADMIN_PASSWORD", "password1"],
    ["DATABASE_URL", "pglite://relative/path"],
    // A URL that does not parse, named here rather than a bare "Invalid URL" at the first connection (found by an attack).
    ["DATABASE_URL", "postgres://u:p@host:notaport/x"],
    ["CORS_ORIGINS", "localhost:5173"],
    ["CORS_ORIGINS", "https://ok.example.com,foo:bar"],
    ["CORS_ORIGINS", "null"],
    ["CORS_ORIGINS", "ftp://files.example.com"],
    ["AUTH_SECRET", "too-short-a-secret"],
    // Long enough, and no secret at all (found by an attack on start-up).
    ["AUTH_SECRET", " ".repeat(40)],
    ["AUTH_SECRET", "a".repeat(32)],
    ["AUTH_SECRET", "abab abab ".repeat(4)],
  ])("a bad %s (%s) is refused with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
  });

  test("the bootstrap admin's password is checked against the common-password list the caller hands in, with the other settings' problems", () => {
    const env = { BOOTSTRAP_ADMIN_EMAIL: "admin@example.com", BOOTSTRAP_ADMIN_PASSWORD: "saffron-harbor-41" };
    expect(loadConfig(env).bootstrapAdmin).toEqual({ email: "admin@example.com", password: "saffron-harbor-41" });
    const listed = { includes: (lowercased: string) => lowercased === "saffron-harbor-41" };
    expect(() => loadConfigWith({ ...env, PORT: "abc" }, listed)).toThrow(
      /^Invalid configuration: PORT: .*; BOOTSTRAP_ADMIN_PASSWORD: Password is too common; choose one that is harder to guess$/,
    );
  });

  test("production needs DATABASE_URL set explicitly: PostgreSQL or a deliberate embedded directory, never the default or memory", () => {
    const production = { NODE_ENV: "production", AUTH_SECRET: PRODUCTION_SECRET, STRIPE_SECRET_KEY: "sk_live_abc123" };
    for (const env of [production, { ...production, DATABASE_URL: "pglite://memory" }]) {
      expect(() => loadConfig(env)).toThrow(/DATABASE_URL: is required when NODE_ENV=production/);
    }
    expect(loadConfig({ ...production, DATABASE_URL: "postgres://u@h/db" }).database.kind).toBe("postgres");
    expect(loadConfig({ ...production, DATABASE_URL: "pglite:///srv/shop/db" }).database).toMatchObject({ directory: "/srv/shop/db" });
  });

  test("Stripe: a secret key selects it (with STRIPE_API_BASE another host, never for a live key); production needs one", () => {
    expect(loadConfig({}).stripe).toBeNull();
    expect(loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_API_BASE: "http://127.0.0.1:12111", STRIPE_WEBHOOK_SECRET: "whsec_xyz" })).toMatchObject({
      stripe: { secretKey: "sk_test_abc", apiBase: "http://127.0.0.1:12111", timeoutMs: 20_000 },
      stripeWebhookSecret: "whsec_xyz",
    });
    expect(loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_TIMEOUT_SECONDS: "5" }).stripe?.timeoutMs).toBe(5_000);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_TIMEOUT_SECONDS: "36" })).toThrow(/STRIPE_TIMEOUT_SECONDS: must be at most 35 seconds/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_live_abc", STRIPE_API_BASE: "http://127.0.0.1:12111" })).toThrow(
      /STRIPE_API_BASE: a live key is never sent to another host/,
    );
    expect(() => loadConfig({ STRIPE_API_BASE: "http://127.0.0.1:12111" })).toThrow(/STRIPE_API_BASE: needs STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "pk_test_abc" })).toThrow(/^Invalid configuration: STRIPE_SECRET_KEY: must be a Stripe secret key/);
    // The storefront's payment step loads Stripe.js with the publishable key.
    expect(loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PUBLISHABLE_KEY: "pk_test_xyz" }).stripe?.publishableKey).toBe("pk_test_xyz");
    expect(loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc" }).stripe?.publishableKey).toBeNull();
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PUBLISHABLE_KEY: "sk_test_xyz" })).toThrow(
      /STRIPE_PUBLISHABLE_KEY: must be a Stripe publishable key/,
    );
    expect(() => loadConfig({ STRIPE_PUBLISHABLE_KEY: "pk_test_xyz" })).toThrow(/STRIPE_PUBLISHABLE_KEY: needs STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ NODE_ENV: "production", AUTH_SECRET: PRODUCTION_SECRET, DATABASE_URL: "postgres://u@h/db" })).toThrow(
      /STRIPE_SECRET_KEY: is required when NODE_ENV=production/,
    );
  });

  test("PayPal: PAYPAL_WEBHOOK_ID alone turns its webhook on (verified offline); the app's client id and secret are accepted, not needed", () => {
    expect(loadConfig({}).webhooks.paypal).toBeNull();
    expect(loadConfig({ PAYPAL_WEBHOOK_ID: "WH-1" }).webhooks.paypal).toEqual({ webhookId: "WH-1" });
    expect(loadConfig({ PAYPAL_WEBHOOK_ID: "WH-1", PAYPAL_CLIENT_ID: "id", PAYPAL_CLIENT_SECRET: "secret" }).webhooks.paypal).toEqual({ webhookId: "WH-1" });
    expect(loadConfig({ PAYPAL_CLIENT_ID: "id", PAYPAL_CLIENT_SECRET: "secret" }).webhooks.paypal).toBeNull();
  });

  test("CORS_ORIGINS are kept as exact origins, and also allowed to make cookie changes", () => {
    const config = loadConfig({ CORS_ORIGINS: " https://web.example.com/ , http://localhost:5173" });
    expect(config.corsOrigins).toEqual(["https://web.example.com", "http://localhost:5173"]);
    expect(config.allowedOrigins).toEqual(["http://localhost:3000", "https://web.example.com", "http://localhost:5173"]);
  });

  test("MAX_UNPAID_ORDERS: 3 unless set; 0 is refused, as it would refuse every checkout (each one makes an unpaid order)", () => {
    expect(loadConfig({}).orders.maxUnpaidOrders).toBe(3);
    expect(loadConfig({ MAX_UNPAID_ORDERS: "10" }).orders.maxUnpaidOrders).toBe(10);
    expect(() => loadConfig({ MAX_UNPAID_ORDERS: "0" })).toThrow(
      "Invalid configuration: MAX_UNPAID_ORDERS: must be at least 1 (every checkout makes an unpaid order, so 0 would refuse them all)",
    );
    for (const bad of ["2.5", "many", "1001"]) expect(() => loadConfig({ MAX_UNPAID_ORDERS: bad })).toThrow(/^Invalid configuration: MAX_UNPAID_ORDERS: /);
  });

  test("LOW_STOCK_THRESHOLD: 5 unless set; 0 lists only the sold-out; anything but a whole number from 0 to 1,000,000 stops the start naming it", () => {
    expect(loadConfig({}).lowStockThreshold).toBe(5);
    expect(loadConfig({ LOW_STOCK_THRESHOLD: "12" }).lowStockThreshold).toBe(12);
    expect(loadConfig({ LOW_STOCK_THRESHOLD: "0" }).lowStockThreshold).toBe(0);
    expect(() => loadConfig({ LOW_STOCK_THRESHOLD: "few" })).toThrow('Invalid configuration: LOW_STOCK_THRESHOLD: must be a whole number, not "few"');
    expect(() => loadConfig({ LOW_STOCK_THRESHOLD: "-1" })).toThrow("Invalid configuration: LOW_STOCK_THRESHOLD: must be at least 0, not -1");
    for (const bad of ["2.5", "1000001"]) expect(() => loadConfig({ LOW_STOCK_THRESHOLD: bad })).toThrow(/^Invalid configuration: LOW_STOCK_THRESHOLD: /);
  });

  test("the rate limits: 100 per endpoint and 10 on the password routes together (decisions §15) per 900 s window; each off at 0 on its own", () => {
    expect(loadConfig({}).rateLimit).toEqual({ max: 100, passwordMax: 10, windowSeconds: 900, exemptUserAgent: "StorefrontMobileApp" });
    expect(loadConfig({ RATE_LIMIT_MAX: "0", PASSWORD_RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_SECONDS: "10" }).rateLimit).toMatchObject({
      max: 0,
      passwordMax: 3,
      windowSeconds: 10,
    });
    expect(loadConfig({ PASSWORD_RATE_LIMIT_MAX: "0" }).rateLimit).toMatchObject({ max: 100, passwordMax: 0 });
    for (const bad of ["-1", "ten", "1.5"])
      expect(() => loadConfig({ PASSWORD_RATE_LIMIT_MAX: bad })).toThrow(/^Invalid configuration: PASSWORD_RATE_LIMIT_MAX: /);
  });

  test("METRICS_PORT: no metrics unless set; a port of its own, never PORT's (0 picks a free one for either)", () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: "9100" }).metricsPort).toBe(9100);
    expect(loadConfig({ PORT: "0", METRICS_PORT: "0" }).metricsPort).toBe(0);
    expect(() => loadConfig({ PORT: "8080", METRICS_PORT: "8080" })).toThrow(
      "Invalid configuration: METRICS_PORT: must differ from PORT (8080): the metrics are never served on the API's port",
    );
    expect(() => loadConfig({ METRICS_PORT: "3000" })).toThrow("METRICS_PORT: must differ from PORT (3000)");
    expect(() => loadConfig({ METRICS_PORT: "metrics" })).toThrow('Invalid configuration: METRICS_PORT: must be a whole number, not "metrics"');
    expect(() => loadConfig({ METRICS_PORT: "70000" })).toThrow("Invalid configuration: METRICS_PORT: must be at most 65535, not 70000");
  });

  test("PUBLIC_URL loses a trailing slash", () => {
    expect(loadConfig({ PUBLIC_URL: "https://shop.example.com/" }).publicUrl).toBe("https://shop.example.com");
  });

  test("tracing is off unless an OTLP endpoint is set; spans go to the general endpoint's v1/traces, or to the traces endpoint as given (OpenTelemetry's rule)", () => {
    expect(loadConfig({}).tracing).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: "shop-eu", OTEL_TRACES_SAMPLER: "traceidratio" }).tracing).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).tracing).toEqual({
      tracesUrl: "http://collector:4318/v1/traces",
      serviceName: "storefront",
      sampler: { ratio: 1, parentBased: true },
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.com/tenant/" }).tracing?.tracesUrl).toBe(
      "https://otlp.example.com/tenant/v1/traces",
    );
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://tempo:4318/traces" }).tracing?.tracesUrl,
    ).toBe("http://tempo:4318/traces");
    const sampled = (sampler: string, arg?: string) =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: arg }).tracing?.sampler;
    expect(sampled("parentbased_traceidratio", "0.1")).toEqual({ ratio: 0.1, parentBased: true });
    expect(sampled("traceidratio", "0.25")).toEqual({ ratio: 0.25, parentBased: false });
    expect(sampled("always_off", "0.5")).toEqual({ ratio: 0, parentBased: false });
    expect(sampled("traceidratio")).toEqual({ ratio: 1, parentBased: false });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: must be a http:\/\/ or https:\/\/ URL/);
    expect(() => sampled("sometimes")).toThrow(/OTEL_TRACES_SAMPLER: must be one of always_on, .*, not "sometimes"/);
    expect(() => sampled("traceidratio", "1.5")).toThrow(/OTEL_TRACES_SAMPLER_ARG: must be at most 1, not 1.5/);
    // A share, not a count: "must be a whole number" sent people looking for an integer (found by an audit).
    expect(() => sampled("traceidratio", "half")).toThrow('OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1 such as 0.1, not "half"');
    expect(() => sampled("traceidratio", "1e-1")).toThrow('OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1 such as 0.1, not "1e-1"');
    expect(sampled("traceidratio", ".5")).toEqual({ ratio: 0.5, parentBased: false });
  });

  test("a value of the wrong kind is named in plain words: what the variable must be, and what was given where it is no secret", () => {
    const problem = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem({ PORT: "abc" })).toBe('Invalid configuration: PORT: must be a whole number, not "abc"');
    expect(problem({ PORT: "70000" })).toBe("Invalid configuration: PORT: must be at most 65535, not 70000");
    expect(problem({ RATE_LIMIT_MAX: "lots" })).toBe('Invalid configuration: RATE_LIMIT_MAX: must be a whole number, not "lots"');
    // What Number() would take is no whole number as written: PORT=1e3 started on port 1000 (found by an audit).
    for (const written of ["1e3", "4340.0", "0x10", "1_000"]) {
      expect(problem({ PORT: written })).toBe(`Invalid configuration: PORT: must be a whole number, not "${written}"`);
    }
    expect(problem({ SHUTDOWN_DRAIN_SECONDS: "1e1" })).toBe('Invalid configuration: SHUTDOWN_DRAIN_SECONDS: must be a whole number, not "1e1"');
    expect(loadConfig({ PORT: " 8080 " }).port).toBe(8080);
    expect(problem({ NODE_ENV: "staging" })).toBe('Invalid configuration: NODE_ENV: must be one of development, production, test, not "staging"');
    // A URL may carry a password: its scheme is named, the URL itself never repeated.
    const redis = problem({ REDIS_URL: "http://user:hunter2@cache:6379" });
    expect(redis).toBe("Invalid configuration: REDIS_URL: must be a redis://, rediss://, valkey:// or valkeys:// URL");
    expect(problem({ SMTP_URL: "http://mail" })).toBe("Invalid configuration: SMTP_URL: must be a smtp:// or smtps:// URL");
    expect(problem({ PUBLIC_URL: "ftp://shop" })).toBe("Invalid configuration: PUBLIC_URL: must be a http:// or https:// URL");
  });

  test("REDIS_KEY_PREFIX: storefront: unless set, so two shops can share one Redis; no spaces", () => {
    expect(loadConfig({}).redisKeyPrefix).toBe("storefront:");
    expect(loadConfig({ REDIS_KEY_PREFIX: "shop-b:" }).redisKeyPrefix).toBe("shop-b:");
    expect(() => loadConfig({ REDIS_KEY_PREFIX: "shop b" })).toThrow("REDIS_KEY_PREFIX: must be 1 to 64 printable characters without spaces");
  });

  test("housekeeping runs every minute and finishes what a crash left after 2 minutes; both can be shortened for tests, the grace not in production", () => {
    const defaults = loadConfig({});
    expect([defaults.housekeepingIntervalMs, defaults.orders.graceMs]).toEqual([60_000, 120_000]);
    const short = loadConfig({ HOUSEKEEPING_INTERVAL_SECONDS: "1", HOUSEKEEPING_GRACE_SECONDS: "2" });
    expect([short.housekeepingIntervalMs, short.orders.graceMs]).toEqual([1_000, 2_000]);
    for (const [name, value, message] of [
      ["HOUSEKEEPING_INTERVAL_SECONDS", "0", "must be at least 1 second"],
      ["HOUSEKEEPING_INTERVAL_SECONDS", "1.5", "must be a whole number of seconds"],
      ["HOUSEKEEPING_GRACE_SECONDS", "soon", "must be a whole number of seconds"],
      ["HOUSEKEEPING_GRACE_SECONDS", "3601", "must be at most 3600 seconds (an hour)"],
    ]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(`Invalid configuration: ${name}: ${message}`);
    }
    const production = { NODE_ENV: "production", AUTH_SECRET: PRODUCTION_SECRET, STRIPE_SECRET_KEY: "sk_live_abc123", DATABASE_URL: "postgres://u@h/db" };
    expect(() => loadConfig({ ...production, HOUSEKEEPING_GRACE_SECONDS: "60" })).toThrow(
      /HOUSEKEEPING_GRACE_SECONDS: must be at least 120 when NODE_ENV=production/,
    );
    expect(loadConfig({ ...production, HOUSEKEEPING_GRACE_SECONDS: "300" }).orders.graceMs).toBe(300_000);
  });

  test("SHOP_TIMEZONE: UTC unless set; an IANA name in its canonical spelling; an unknown zone or a bare offset stops the start", () => {
    expect(loadConfig({}).shopTimeZone).toBe("UTC");
    expect(loadConfig({ SHOP_TIMEZONE: "America/New_York" }).shopTimeZone).toBe("America/New_York");
    expect(loadConfig({ SHOP_TIMEZONE: "europe/paris" }).shopTimeZone).toBe("Europe/Paris");
    for (const zone of ["Mars/Olympus", "+02:00", "EST-ish"]) {
      expect(() => loadConfig({ SHOP_TIMEZONE: zone })).toThrow(
        `Invalid configuration: SHOP_TIMEZONE: must be an IANA time zone name such as America/New_York or Europe/Paris, not "${zone}"`,
      );
    }
  });

  test("BCRYPT_COST: 12 unless set; 4 to 15; production takes no less than 12", () => {
    expect(loadConfig({}).bcryptCost).toBe(12);
    expect(loadConfig({ BCRYPT_COST: "4" }).bcryptCost).toBe(4);
    expect(() => loadConfig({ BCRYPT_COST: "3" })).toThrow("BCRYPT_COST: must be at least 4, not 3");
    const production = { NODE_ENV: "production", AUTH_SECRET: PRODUCTION_SECRET, STRIPE_SECRET_KEY: "sk_live_abc123", DATABASE_URL: "postgres://u@h/db" };
    expect(() => loadConfig({ ...production, BCRYPT_COST: "10" })).toThrow("BCRYPT_COST: must be at least 12 when NODE_ENV=production, not 10");
    expect(loadConfig({ ...production, BCRYPT_COST: "13" }).bcryptCost).toBe(13);
  });
});
