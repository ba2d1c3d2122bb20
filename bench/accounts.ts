// Sign-in throughput (bcrypt-bound) and product latency while sign-ins saturate: `npm run bench:accounts`.
import { makeUseCases } from "../src/application/use-cases.ts";
import { SYSTEM_ACTOR } from "../src/domain/permissions.ts";
import { silentLogger } from "../src/adapters/log.ts";
import { buildRuntime } from "../src/compose.ts";
import { loadConfig } from "../src/config.ts";
import { load, prepareDatabase, printTable, startServer } from "./support.ts";

const databaseUrl = await prepareDatabase();
const config = loadConfig({ DATABASE_URL: databaseUrl });
const runtime = buildRuntime(config, silentLogger);
await makeUseCases(runtime.deps, { publicUrl: config.publicUrl }).createUser(SYSTEM_ACTOR, {
  email: "bench@example.com",
  password: "bench password",
  role: "CUSTOMER",
});
await runtime.close();

const server = await startServer({ DATABASE_URL: databaseUrl });
try {
  const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
  const productUrl = `${server.base}/api/products/${list.data[0]?.id}`;
  const signIn = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: "bench password" }),
    connections: 16,
  };
  await load("warm-up", productUrl, { seconds: 3 });
  const idle = await load("GET /api/products/:id, idle", productUrl);
  const signInsAlone = await load("POST /api/auth/callback/credentials, alone (16 conns)", `${server.base}/api/auth/callback/credentials`, signIn);
  const [signInsBusy, busy] = await Promise.all([
    load("POST /api/auth/callback/credentials, with product load (16 conns)", `${server.base}/api/auth/callback/credentials`, signIn),
    load("GET /api/products/:id, while sign-ins saturate", productUrl),
  ]);
  printTable([idle, signInsAlone, signInsBusy, busy]);
  console.log(`\np99 under sign-in load / idle p99: ${(busy.p99 / idle.p99).toFixed(2)}×`);
} finally {
  server.stop();
}
