// Every bench in turn, then one summary table: `npm run bench` (BENCH_ONLY=checkout,payment for some).
// Each bench runs as its own process with its output shown as it comes; the table gives each one's
// last line, its goal, and whether the line meets it. The write benches (checkout, payment, hot-sku)
// run the write probe just before and after themselves and give their figure as a ratio to it.
// A bench is one entry of BENCHES: its script is bench/<name>.ts, and one missing on this branch is
// listed as such.
import { existsSync } from "node:fs";
import { resolve } from "node:path";

interface Bench {
  name: string;
  goal: string;
  /** Whether the last line meets the goal; undefined when the line does not carry the figures. */
  met?: (line: string) => boolean | undefined;
}

/** The numbers after each pattern in `line`, or undefined when one is missing. */
function figures(line: string, ...patterns: RegExp[]): number[] | undefined {
  const found = patterns.map((pattern) => pattern.exec(line)?.[1]);
  return found.every((f) => f !== undefined) ? found.map(Number) : undefined;
}

const when =
  (patterns: RegExp[], test: (...values: number[]) => boolean) =>
  (line: string): boolean | undefined => {
    const values = figures(line, ...patterns);
    return values ? test(...values) : undefined;
  };

const ratio = /([\d.]+) of the write probe/;

export const BENCHES: Bench[] = [
  {
    name: "catalog",
    goal: "GET /api/products/:id ≥ 4,000 requests/s, p99 < 25 ms",
    met: when([/:id (\d+) requests\/s/, /p99 ([\d.]+) ms/], (rps, p99) => rps >= 4000 && p99 < 25),
  },
  {
    name: "accounts",
    goal: "product p99 ≤ 2× idle while 24 clients sign in",
    met: when([/p99 ([\d.]+)× idle/], (times) => times <= 2),
  },
  {
    name: "cart",
    goal: "GET ≥ 3,000 requests/s, p99 < 30 ms; POST ≥ 1,500 requests/s; layers < 30 % of the floor",
    met: when(
      [/GET (\d+) requests\/s/, /p99 ([\d.]+) ms/, /POST (\d+) requests\/s/, /layers ([\d.-]+) %/],
      (get, p99, post, layers) => get >= 3000 && p99 < 30 && post >= 1500 && layers < 30,
    ),
  },
  {
    name: "checkout",
    goal: "orders/s ≥ 0.08 of the write probe; p99 < 150 ms; peak RSS < 150 MB",
    met: when([ratio, /p99 ([\d.]+) ms/, /peak RSS (\d+) MB/], (r, p99, rss) => r >= 0.08 && p99 < 150 && rss < 150),
  },
  {
    name: "payment",
    goal: "paid orders/s ≥ 0.06 of the write probe",
    met: when([ratio], (r) => r >= 0.06),
  },
  {
    name: "hot-sku",
    goal: "≥ 500 checkouts/s of one product over two instances, 0 oversold",
    met: when([/(\d+) checkouts\/s/, /(\d+) oversold/], (rate, oversold) => rate >= 500 && oversold === 0),
  },
  {
    name: "rate-limit",
    goal: "the limiter costs < 10 % in memory, < 25 % with Redis",
    met: when([/([\d.-]+) % in memory/, /([\d.-]+) % with Redis/], (memory, redis) => memory < 10 && redis < 25),
  },
  {
    name: "admin",
    goal: "A list p99 < 50 ms; B export ≥ 50,000 rows/s; C RSS growth < 30 MB; D others' p99 ≤ 2×; E report p99 < 300 ms",
    met: when(
      [/list p99 ([\d.]+) ms/, /export (\d+) rows\/s/, /rss \+([\d.]+) MB/, /others p99 x([\d.]+)/, /report p99 ([\d.]+) ms/],
      (a, b, c, d, e) => a < 50 && b >= 50_000 && c < 30 && d <= 2 && e < 300,
    ),
  },
  { name: "tracing", goal: "tracing off costs no measurable server CPU a request (read its table)" },
  { name: "web", goal: "as bench/web.ts states it" },
];

const root = resolve(import.meta.dir, "..");
const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
const chosen = only ? BENCHES.filter((bench) => only.includes(bench.name)) : BENCHES;

/** Runs one bench, showing its output as it comes; returns its last line (null when it failed or is absent). */
async function run(bench: Bench): Promise<{ line: string | null; note?: string }> {
  const script = resolve(root, "bench", `${bench.name}.ts`);
  if (!existsSync(script)) return { line: null, note: "not on this branch" };
  console.log(`\n## bench:${bench.name}\n`);
  const child = Bun.spawn([process.execPath, script], { cwd: root, stdout: "pipe", stderr: "inherit" });
  let output = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const text = decoder.decode(chunk, { stream: true });
    output += text;
    process.stdout.write(text);
  }
  const code = await child.exited;
  const lines = output.trim().split("\n");
  const line = lines[lines.length - 1]?.trim() || null;
  return code === 0 ? { line } : { line, note: `exited with ${code}` };
}

const rows: string[][] = [];
for (const bench of chosen) {
  const { line, note } = await run(bench);
  const met = note ? undefined : line ? bench.met?.(line) : undefined;
  rows.push([bench.name, note ? `${note}${line ? `: ${line}` : ""}` : (line ?? ""), bench.goal, met === undefined ? "—" : met ? "yes" : "no"]);
}

const cell = (text: string) => text.replaceAll("|", "\\|");
console.log("\n## Summary\n\n| bench | last line | goal | met |\n|---|---|---|---|");
for (const row of rows) console.log(`| ${row.map(cell).join(" | ")} |`);
