import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAuthSecret } from "../../src/adapters/crypto/auth-secret.ts";
import { silentLogger } from "../../src/adapters/log.ts";

// The session secret generated in development and kept in DATA_DIR (decisions §10).
const root = mkdtempSync(join(tmpdir(), "storefront-secret-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const aDataDir = (name: string) => join(root, name);

test("four starts at once on a new DATA_DIR, all as process 1 (containers sharing one), each start and use the one secret kept (found by a review)", async () => {
  const module = join(import.meta.dir, "../../src/adapters/crypto/auth-secret.ts");
  // Each loads the module, then waits for the same instant, so that the starts meet.
  const script = `Object.defineProperty(process, "pid", { value: 1 });
    const { resolveAuthSecret } = await import(${JSON.stringify(module)});
    while (Date.now() < Number(process.env.START_AT)) {}
    console.log(resolveAuthSecret(null, process.env.SECRET_DIR, { debug() {}, info() {}, warn() {}, error() {} }).secret);`;
  for (let round = 0; round < 3; round++) {
    const dataDir = aDataDir(`together-${round}`);
    const startAt = String(Date.now() + 400);
    const starts = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, SECRET_DIR: dataDir, START_AT: startAt }, stdout: "pipe", stderr: "pipe" }),
    );
    const said = await Promise.all(
      starts.map(async (start) => ({
        code: await start.exited,
        out: (await new Response(start.stdout).text()).trim(),
        err: await new Response(start.stderr).text(),
      })),
    );
    expect(said.map((s) => [s.code, s.err.split("\n")[0]])).toEqual(said.map(() => [0, ""]));
    const kept = readFileSync(join(dataDir, "auth-secret"), "utf8");
    expect(kept.length).toBeGreaterThanOrEqual(32);
    expect(said.map((s) => s.out)).toEqual(said.map(() => kept));
    expect(readdirSync(dataDir)).toEqual(["auth-secret"]);
  }
}, 20_000);

test("the secret is made once and kept: every later start reads the same one", () => {
  const dataDir = aDataDir("kept");
  const first = resolveAuthSecret(null, dataDir, silentLogger);
  expect(resolveAuthSecret(null, dataDir, silentLogger)).toEqual(first);
  expect(first.source).toBe(`generated, kept in ${join(dataDir, "auth-secret")}`);
});

test("a start's own file left by a start killed before it linked it in is swept once a minute old; a newer one, perhaps another start's, is left (found by a review)", () => {
  const dataDir = aDataDir("swept");
  resolveAuthSecret(null, dataDir, silentLogger);
  const [old, recent] = [join(dataDir, "auth-secret.abandoned.new"), join(dataDir, "auth-secret.starting.new")];
  writeFileSync(old, "");
  writeFileSync(recent, "");
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  utimesSync(old, twoMinutesAgo, twoMinutesAgo);
  resolveAuthSecret(null, dataDir, silentLogger);
  expect(readdirSync(dataDir).sort()).toEqual(["auth-secret", "auth-secret.starting.new"]);
});
