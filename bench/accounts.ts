// Sign-in throughput (bcrypt-bound) and product latency while sign-ins saturate: `npm run bench:accounts`.
// The last line reads `accounts: GET /api/products/:id p99 <R>× idle while 24 clients sign in, …`.
import { silentLogger } from "../src/adapters/log.ts";
import { buildRuntime } from "../src/compose.ts";
import { commonPasswords } from "../src/adapters/crypto/common-passwords.ts";
import { loadConfig } from "../src/config.ts";
import { aUser } from "../tests/support/builders.ts";
import { load, loadRotating, prepareDatabase, printTable, startServer, withConfigFile } from "./support.ts";

// Each sign-in goes to the next of 64 accounts: more than 5 checks in flight for one e-mail count
// as failures (the lockout reserves its slot before bcrypt), and no real account signs in 16 times at once.
const ACCOUNTS = 64;
const PASSWORD = "bench password";

const databaseUrl = await prepareDatabase();
const config = loadConfig({ DATABASE_URL: databaseUrl }, commonPasswords);
const runtime = buildRuntime(config, silentLogger);
const passwordHash = await runtime.deps.hasher.hash(PASSWORD);
const emails = Array.from({ length: ACCOUNTS }, (_, i) => `bench-${i}@example.com`);
for (const email of emails) await runtime.deps.uow.transaction((tx) => tx.users.create({ ...aUser({ email }), passwordHash }));
await runtime.close();

// Each account signs in from an address of its own (TRUST_PROXY): a real flood of sign-ins comes from
// many clients, and one client gets at most one check in the line (decisions §15).
const server = await startServer({ DATABASE_URL: databaseUrl, TRUST_PROXY: "true" });
const addressOf = (i: number) => `10.7.${i >> 8}.${i & 255}`;
try {
  const list = (await (await fetch(`${server.base}/api/products?limit=1`)).json()) as { data: { id: string }[] };
  const productUrl = `${server.base}/api/products/${list.data[0]?.id}`;
  const signInUrl = `${server.base}/api/auth/callback/credentials`;
  const variants = emails.map((email, i) => ({
    headers: { "content-type": "application/json", "x-forwarded-for": addressOf(i) },
    body: JSON.stringify({ email, password: PASSWORD }),
  }));
  const signIn = (name: string) => loadRotating(name, signInUrl, variants, { method: "POST", connections: 16 });
  await load("warm-up", productUrl, { seconds: 3 });
  const idle = await load("GET /api/products/:id, idle", productUrl);
  const signInsAlone = await signIn("POST /api/auth/callback/credentials, alone (16 conns)");
  const [signInsBusy, busy] = await Promise.all([
    signIn("POST /api/auth/callback/credentials, with product load (16 conns)"),
    load("GET /api/products/:id, while sign-ins saturate", productUrl),
  ]);
  printTable([idle, signInsAlone, signInsBusy, busy]);
  console.log(`\np99 under sign-in load / idle p99: ${(busy.p99 / idle.p99).toFixed(2)}×`);

  // Clients that wait what Retry-After says when refused, as real ones do.
  const [patient, catalog] = await withConfigFile("sign-ins", { url: signInUrl, clients: 24, seconds: 10, variants }, (file) => {
    const clients = Bun.spawn(["node", "bench/sign-in-clients.mjs", file], { stdout: "pipe", stderr: "inherit" });
    return Promise.all([
      new Response(clients.stdout).text().then((text) => JSON.parse(text)),
      load("GET /api/products/:id, while 24 clients sign in", productUrl),
    ]);
  });
  console.log(`\n24 sign-in clients honouring Retry-After for 10 s: ${JSON.stringify(patient.outcomes)}, p50 ${patient.p50} ms, p99 ${patient.p99} ms`);
  printTable([catalog]);
  console.log(`p99 while they sign in / idle p99: ${(catalog.p99 / idle.p99).toFixed(2)}×`);

  // A real sign-in while 24 others are in flight: answered within the bound's wait, or refused at once.
  const flood = variants.slice(0, 24).map((variant) => fetch(signInUrl, { method: "POST", ...variant }));
  await Bun.sleep(50);
  const started = performance.now();
  const real = await fetch(signInUrl, { method: "POST", ...variants[40] });
  const answeredIn = Math.round(performance.now() - started);
  console.log(`a real sign-in while 24 are in flight: ${real.status} after ${answeredIn} ms`);
  await Promise.all(flood);
  console.log(
    `accounts: GET /api/products/:id p99 ${(catalog.p99 / idle.p99).toFixed(2)}× idle while 24 clients sign in (${(busy.p99 / idle.p99).toFixed(2)}× under 16 connections signing in without pause); a sign-in amid 24 answered ${real.status} in ${answeredIn} ms`,
  );
} finally {
  server.stop();
}
