import { expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { webBuild } from "../support/web.ts";

// Decisions §13: the storefront's JavaScript stays within 60 KB gzipped. Everything its page loads
// counts: the scripts the page names and whatever they import.
const BUDGET = 60 * 1024;

test("the storefront's JavaScript is at most 60 KB gzipped", async () => {
  const build = await webBuild();
  const page = new TextDecoder().decode(build.storefront.body);
  const scripts = [...page.matchAll(/<script[^>]*src="\/assets\/([^"]+)"/g)].map((match) => match[1]!);
  expect(scripts.length).toBeGreaterThan(0);
  const loaded = new Set<string>();
  const pending = [...scripts];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (loaded.has(path)) continue;
    loaded.add(path);
    const source = new TextDecoder().decode(build.assets.get(path)!.body);
    for (const match of source.matchAll(/(?:import|from)\s*\(?\s*["']\/assets\/([^"']+\.js)["']/g)) pending.push(match[1]!);
  }
  const gzipped = [...loaded].reduce((sum, path) => sum + gzipSync(build.assets.get(path)!.body, { level: 9 }).byteLength, 0);
  console.log(`storefront JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzipped in ${loaded.size} file(s)`);
  expect(gzipped).toBeLessThanOrEqual(BUDGET);
}, 20_000);
