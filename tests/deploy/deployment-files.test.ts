import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commonPasswords } from "../../src/adapters/crypto/common-passwords.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { createTestApp } from "../support/http.ts";

// The Dockerfile and the compose file are run by people, not by this suite (no Docker here); what
// they say and run is held to the code they start.
const root = join(import.meta.dir, "../..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const compose = Bun.YAML.parse(readFileSync(join(root, "deploy/docker-compose.yml"), "utf8")) as {
  services: Record<
    string,
    { command?: string[]; profiles?: string[]; environment?: Record<string, string>; healthcheck?: { test: string[] }; depends_on?: object }
  >;
};
const shops = ["shop-1", "shop-2"].map((name) => compose.services[name]!);

const healthy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => createTestApp().app.handle(request) });
// Alive (liveness answers 200), and not ready: its database is behind this code's migrations.
const behind = createTestApp(createMemoryDeps({ database: { ping: async () => undefined, pendingMigrations: async () => ["0099_from_the_future"] } }));
const unready = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => behind.app.handle(request) });
afterAll(() => {
  healthy.stop(true);
  unready.stop(true);
});

/** Runs a health check's command as Docker would, with PORT (or the compose file's 3000) pointing at `port`. */
async function runCheck(command: string[], port: number): Promise<number> {
  const [program, ...args] = command.map((part) => part.replace("127.0.0.1:3000", `127.0.0.1:${port}`));
  const bun = program === "bun" ? process.execPath : program!;
  // Not spawnSync: the shop answering is this process's own server.
  return Bun.spawn([bun, ...args], { env: { ...process.env, PORT: String(port) } }).exited;
}

test("the Dockerfile's own example starts: the variables it names are all production needs", () => {
  const example = dockerfile.match(/docker run[^\n\\]*(?:\\\n#[^\n]*)*/)![0];
  // Placeholders filled in as a reader would: a generated secret, the rest of a key where "…" stands.
  const filled = (value: string) => (value.startsWith('"$(') ? randomBytes(48).toString("base64") : value.replace("…", "51AbCdEf"));
  const env = Object.fromEntries([...example.matchAll(/-e (\w+)=("[^"]*"|\S+)/g)].map(([, name, value]) => [name, filled(value!)]));
  expect(Object.keys(env).sort()).toEqual(["AUTH_SECRET", "DATABASE_URL", "STRIPE_SECRET_KEY"]);
  expect(() => loadConfig({ NODE_ENV: "production", ...env }, commonPasswords)).not.toThrow();
  const { STRIPE_SECRET_KEY: _, ...withoutStripe } = env;
  expect(() => loadConfig({ NODE_ENV: "production", ...withoutStripe }, commonPasswords)).toThrow("STRIPE_SECRET_KEY");
});

test("the image's and compose's health checks ask readiness: they pass against a ready shop, and fail against one behind its migrations or none", async () => {
  expect((await fetch(`http://127.0.0.1:${unready.port}/api/health`)).status).toBe(200);
  const imageCheck = JSON.parse(dockerfile.match(/HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/)![1]!) as string[];
  for (const check of [imageCheck, ...shops.map((shop) => shop.healthcheck!.test.slice(1))]) {
    expect(await runCheck(check, healthy.port!)).toBe(0);
    expect(await runCheck(check, unready.port!)).toBe(1);
    expect(await runCheck(check, 1)).toBe(1);
  }
}, 20_000);

test("compose: both instances are health-checked, nginx waits for them, and BOOTSTRAP_ADMIN_* reaches them", () => {
  for (const shop of shops) {
    expect(shop.healthcheck?.test[0]).toBe("CMD");
    expect(Object.keys(shop.environment!)).toEqual(
      expect.arrayContaining(["BOOTSTRAP_ADMIN_EMAIL", "BOOTSTRAP_ADMIN_PASSWORD", "STRIPE_SECRET_KEY", "AUTH_SECRET"]),
    );
    expect(shop.environment!.NODE_ENV).toBe("production");
    expect(shop.environment!.STRIPE_SECRET_KEY).toContain(":?");
    // Metrics on a port of their own, which compose does not publish: Prometheus scrapes inside its network.
    expect(loadConfig({ METRICS_PORT: shop.environment!.METRICS_PORT }, commonPasswords).metricsPort).toBe(9100);
    expect(shop).not.toHaveProperty("ports");
  }
  expect(compose.services.nginx!.depends_on).toEqual({ "shop-1": { condition: "service_healthy" }, "shop-2": { condition: "service_healthy" } });
});

test("compose's one-shot services run CLI commands that exist: db:migrate always, db:seed with the demo profile", () => {
  expect(compose.services.migrate!.command).toEqual(["bun", "src/cli/main.ts", "db:migrate"]);
  expect(compose.services.seed).toMatchObject({ command: ["bun", "src/cli/main.ts", "db:seed"], profiles: ["demo"] });
  const help = Bun.spawnSync([process.execPath, "src/cli/main.ts", "--help"], { cwd: root }).stdout.toString();
  for (const command of ["db:migrate", "db:seed"]) expect(help).toContain(command);
}, 20_000);
