import { expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_DATABASE_URL } from "../support/postgres.ts";

// A shop carries only the libraries its settings use: the Stripe SDK and prom-client are loaded
// when Stripe takes the payments (or verifies webhooks) and when METRICS_PORT asks for metrics, not
// otherwise (some 3 MB of the server's memory each). Each shop is built in a process of its own, since
// this one has loaded both for other tests.

const LIBRARIES = { stripe: "node_modules/stripe/", "prom-client": "node_modules/prom-client/" };

/** Which of LIBRARIES a shop built (not started: it connects to nothing) with these settings has loaded. */
async function librariesLoaded(env: Record<string, string>): Promise<string[]> {
  const script = `
    const { buildRuntime } = await import("./src/compose.ts");
    const { loadConfig } = await import("./src/config.ts");
    const { commonPasswords } = await import("./src/adapters/crypto/common-passwords.ts");
    const { silentLogger } = await import("./src/adapters/log.ts");
    const runtime = buildRuntime(loadConfig(${JSON.stringify({ DATABASE_URL: ADMIN_DATABASE_URL, ...env })}, commonPasswords), silentLogger);
    const loaded = Object.keys(require.cache);
    console.log(JSON.stringify(Object.entries(${JSON.stringify(LIBRARIES)}).filter(([, path]) => loaded.some((file) => file.includes(path))).map(([name]) => name)));
    await runtime.close();`;
  const child = Bun.spawn([process.execPath, "-e", script], { cwd: join(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe", timeout: 15_000 });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`the shop's build failed (${code}): ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "null");
}

test("a shop on the fake processor without metrics loads neither the Stripe SDK nor prom-client", async () => {
  expect(await librariesLoaded({})).toEqual([]);
}, 20_000);

test("Stripe's settings load the Stripe SDK, and METRICS_PORT loads prom-client", async () => {
  expect(await librariesLoaded({ STRIPE_SECRET_KEY: "sk_test_lazy", METRICS_PORT: "0" })).toEqual(["stripe", "prom-client"]);
}, 20_000);
