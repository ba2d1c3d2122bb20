import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const config = join(root, ".dependency-cruiser.cjs");
const ruleNames: string[] = require(config).forbidden.map((rule: { name: string }) => rule.name);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The layer check of `npm run check:layers` (same rules), on a tree of its own. */
function violationsIn(dir: string): Violation[] {
  const cruiser = join(root, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const run = Bun.spawnSync([process.execPath, cruiser, "src", "--config", config, "--output-type", "json"], { cwd: dir, timeout: 20_000 });
  if (!run.success) throw new Error(`dependency-cruiser failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()).summary.violations;
}

describe("the layer rules (npm run check:layers)", () => {
  // tests/fixtures/layers/src breaks each rule once; its other imports (domain to domain) are allowed.
  let found: Violation[] = [];
  beforeAll(() => {
    found = violationsIn(join(import.meta.dir, "fixtures/layers"));
  }, 30_000);

  test("catch each wrong import in a tree that breaks every rule once, a type-only import and a cycle included", () => {
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()).toEqual([
      "adapters-not-cli-or-main: src/adapters/http/app.ts → src/compose.ts",
      "adapters-own-their-settings: src/adapters/db.ts → src/config.ts",
      "application-not-adapters: src/application/checkout.ts → src/adapters/log.ts",
      "cli-not-http: src/cli/main.ts → src/adapters/http/app.ts",
      "config-imports-no-adapter: src/config.ts → src/adapters/log.ts",
      "domain-is-pure: src/domain/order.ts → src/adapters/log.ts",
      "no-circular: src/application/cart.ts → src/application/order.ts",
    ]);
  });

  test("every rule has its case in the fixture, so none can stop working unnoticed", () => {
    expect(new Set(found.map((v) => v.rule.name))).toEqual(new Set(ruleNames));
  });
});
