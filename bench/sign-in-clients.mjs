// Sign-in clients that behave as real ones do, each from an address of its own: each signs in, and
// when told 503 or 429 waits what Retry-After says before trying again. Run by bench/accounts.ts under Node.js:
//   node bench/sign-in-clients.mjs <config.json>   → JSON summary on stdout
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const outcomes = {};
const latencies = [];
let running = true;

async function client(index) {
  for (let turn = 0; running; turn++) {
    const { headers, body } = config.variants[(index + turn * config.clients) % config.variants.length];
    const started = performance.now();
    const response = await fetch(config.url, { method: "POST", headers, body });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    outcomes[response.status] = (outcomes[response.status] ?? 0) + 1;
    const wait = response.status === 503 || response.status === 429 ? Number(response.headers.get("retry-after") ?? 1) * 1000 : 0;
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const clients = Array.from({ length: config.clients }, (_, i) => client(i));
await new Promise((resolve) => setTimeout(resolve, config.seconds * 1000));
running = false;
await Promise.all(clients);
latencies.sort((a, b) => a - b);
const at = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
process.stdout.write(JSON.stringify({ outcomes, p50: at(50), p99: at(99), requests: latencies.length }));
