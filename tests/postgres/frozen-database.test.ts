import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { commonPasswords } from "../../src/adapters/crypto/common-passwords.ts";
import { PROBE_WAIT_MS } from "../../src/adapters/db/store.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { checkHealth, checkReadiness } from "../../src/application/system/check-health.ts";
import { buildRuntime } from "../../src/compose.ts";
import { loadConfig } from "../../src/config.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// A database that stops answering without refusing (its server frozen, or cut off by the network):
// played by a proxy in front of the machine's PostgreSQL that, frozen, passes nothing on. Health and
// readiness must still answer, within their wait, that the database is unavailable, and a metrics
// scrape leave out what it cannot read (found by an
// audit: each probe waited until the HTTP idle timeout cut it, with no answer at all), and say it
// is back once it answers again.

let database: TestDatabase;
let proxy: TCPSocketListener<Link>;
let frozen = false;
/** What was sent while frozen, held (as the kernel holds it for a stopped server) until thawed. */
const held: Array<() => void> = [];
const pass = (to: { write(bytes: Uint8Array): number } | undefined, bytes: Uint8Array) => {
  const copy = new Uint8Array(bytes);
  if (frozen) held.push(() => to?.write(copy));
  else to?.write(copy);
};
function thaw() {
  frozen = false;
  for (const write of held.splice(0)) write();
}
/** One connection through the proxy: its way on to PostgreSQL, and what came before that was open. */
interface Link {
  upstream?: Socket;
  early: Uint8Array[];
}
beforeAll(async () => {
  database = await createTestDatabase();
  const target = new URL(database.url);
  proxy = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        client.data = { early: [] };
        const upstream = await Bun.connect({
          hostname: target.hostname,
          port: Number(target.port || 5432),
          socket: {
            data: (_, bytes) => pass(client, bytes),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        });
        for (const bytes of client.data.early) upstream.write(bytes);
        client.data.upstream = upstream;
      },
      data: (client, bytes) => {
        if (client.data.upstream) pass(client.data.upstream, bytes);
        else client.data.early.push(new Uint8Array(bytes));
      },
      close: (client) => void client.data.upstream?.end(),
      error: (client) => void client.data.upstream?.end(),
    },
  });
});
afterAll(async () => {
  proxy?.stop(true);
  await database?.drop();
});

test("a database that stops answering: health and readiness say unavailable, and a scrape leaves the outbox out, each within its wait, instead of waiting for ever (PostgreSQL)", async () => {
  const url = new URL(database.url);
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  // The shop's own wiring (compose.ts), on PostgreSQL through the proxy, with metrics kept.
  const config = loadConfig({ DATABASE_URL: url.toString(), METRICS_PORT: "0", NODE_ENV: "test" }, commonPasswords);
  const runtime = buildRuntime(config, silentLogger);
  const deps = runtime.deps;
  const scrape = async () => (await runtime.metrics!.scrape()).text;
  try {
    expect(await checkHealth(deps)).toEqual({ status: "ok" });
    expect((await checkReadiness(deps)).ready).toBe(true);
    expect(await scrape()).toContain('storefront_mail_outbox_messages{status="pending"} 0');

    frozen = true;
    const [health, readiness, scraped] = await Promise.all([checkHealth(deps), checkReadiness(deps), scrape()]);
    // The probe's own wait gave up (not the pool's 5 s for a connection, nor the 30 s after which the connection is cut).
    expect(health).toEqual({ status: "unavailable", reason: `no answer within ${PROBE_WAIT_MS} ms` });
    expect(readiness).toMatchObject({ ready: false, database: "unavailable" });
    expect(scraped).toContain("storefront_http_requests_total");
    expect(scraped).not.toContain("storefront_mail_outbox_messages{");
    // Answering again, it is ready again.
    thaw();
    expect((await checkReadiness(deps)).ready).toBe(true);
  } finally {
    thaw();
    await runtime.close();
  }
}, 20_000);
