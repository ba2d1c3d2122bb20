import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config.ts";

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
    ["CORS_ORIGINS", "localhost:5173"],
    ["CORS_ORIGINS", "https://ok.example.com,foo:bar"],
    ["CORS_ORIGINS", "null"],
    ["CORS_ORIGINS", "ftp://files.example.com"],
  ])("a bad %s (%s) is refused with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
  });

  test("production needs DATABASE_URL set explicitly: PostgreSQL or a deliberate embedded directory, never the default or memory", () => {
    const production = { NODE_ENV: "production", AUTH_SECRET: "a".repeat(32), STRIPE_SECRET_KEY: "sk_live_abc123" };
    for (const env of [production, { ...production, DATABASE_URL: "pglite://memory" }]) {
      expect(() => loadConfig(env)).toThrow(/DATABASE_URL: is required when NODE_ENV=production/);
    }
    expect(loadConfig({ ...production, DATABASE_URL: "postgres://u@h/db" }).database.kind).toBe("postgres");
    expect(loadConfig({ ...production, DATABASE_URL: "pglite:///srv/shop/db" }).database).toMatchObject({ directory: "/srv/shop/db" });
  });

  test("Stripe: a secret key selects it (with STRIPE_API_BASE another host, never for a live key); production needs one", () => {
    expect(loadConfig({}).stripe).toBeNull();
    expect(loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_API_BASE: "http://127.0.0.1:12111", STRIPE_WEBHOOK_SECRET: "whsec_xyz" })).toMatchObject({
      stripe: { secretKey: "sk_test_abc", apiBase: "http://127.0.0.1:12111" },
      stripeWebhookSecret: "whsec_xyz",
    });
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_live_abc", STRIPE_API_BASE: "http://127.0.0.1:12111" })).toThrow(
      /STRIPE_API_BASE: a live key is never sent to another host/,
    );
    expect(() => loadConfig({ STRIPE_API_BASE: "http://127.0.0.1:12111" })).toThrow(/STRIPE_API_BASE: needs STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "pk_test_abc" })).toThrow(/^Invalid configuration: STRIPE_SECRET_KEY: must be a Stripe secret key/);
    expect(() => loadConfig({ NODE_ENV: "production", AUTH_SECRET: "a".repeat(32), DATABASE_URL: "postgres://u@h/db" })).toThrow(
      /STRIPE_SECRET_KEY: is required when NODE_ENV=production/,
    );
  });

  test("CORS_ORIGINS are kept as exact origins, and also allowed to make cookie changes", () => {
    const config = loadConfig({ CORS_ORIGINS: " https://web.example.com/ , http://localhost:5173" });
    expect(config.corsOrigins).toEqual(["https://web.example.com", "http://localhost:5173"]);
    expect(config.allowedOrigins).toEqual(["http://localhost:3000", "https://web.example.com", "http://localhost:5173"]);
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

  test("PUBLIC_URL loses a trailing slash", () => {
    expect(loadConfig({ PUBLIC_URL: "https://shop.example.com/" }).publicUrl).toBe("https://shop.example.com");
  });
});
