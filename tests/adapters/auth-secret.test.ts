import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAuthSecret } from "../../src/adapters/crypto/auth-secret.ts";
import { silentLogger } from "../../src/adapters/log.ts";

// The session secret generated in development and kept in DATA_DIR (decisions §10).
const root = mkdtempSync(join(tmpdir(), "storefront-secret-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const aDataDir = (name: string) => join(root, name);

test("a new secret is written to a file of its own and linked in whole: what a start killed mid-write leaves (that file, cut short) stops no later start", () => {
  const dataDir = aDataDir("killed");
  resolveAuthSecret(null, dataDir, silentLogger);
  rmSync(join(dataDir, "auth-secret"));
  // What a start killed mid-write leaves: its own file, cut short.
  writeFileSync(join(dataDir, "auth-secret.12345.new"), "", { mode: 0o600 });
  const { secret } = resolveAuthSecret(null, dataDir, silentLogger);
  expect(secret.length).toBeGreaterThanOrEqual(32);
  expect(readFileSync(join(dataDir, "auth-secret"), "utf8")).toBe(secret);
  expect(statSync(join(dataDir, "auth-secret")).mode & 0o777).toBe(0o600);
  // Its own file is gone once linked in.
  expect(readdirSync(dataDir).filter((name) => name.startsWith("auth-secret.") && !name.startsWith("auth-secret.12345"))).toEqual([]);
});

test("the secret is made once and kept: every later start reads the same one", () => {
  const dataDir = aDataDir("kept");
  const first = resolveAuthSecret(null, dataDir, silentLogger);
  expect(resolveAuthSecret(null, dataDir, silentLogger)).toEqual(first);
  expect(first.source).toBe(`generated, kept in ${join(dataDir, "auth-secret")}`);
});
