import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "pg";
import { aProduct } from "../support/builders.ts";
import { runCliHere } from "../support/cli.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// The CLI's inventory:adjust, run in this process as its bin runs it (tests/support/cli.ts), against a fresh PostgreSQL database of this file's own.

const TIMEOUT = 30_000;
let database: TestDatabase;
let deps: ReturnType<typeof createPgDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createPgDeps(database.db);
}, TIMEOUT);

afterAll(async () => {
  await database?.drop();
}, TIMEOUT);

const cli = (...args: string[]) => runCliHere({ DATABASE_URL: database.url }, ...args);

async function aSauce(sku: string, inventory: number) {
  const product = aProduct({ name: `Sauce ${sku}`, sku, inventory });
  await deps.repos.products.create(product);
  return { product, stock: async () => (await deps.repos.products.findById(product.id))!.inventory };
}

describe("inventory:adjust SKU DELTA --reason TEXT (decisions §12)", () => {
  test(
    "adds or takes units by SKU, as the system actor, audited with the reason; a negative DELTA is a number, not an option",
    async () => {
      const { product, stock } = await aSauce("SF-CLI-001", 10);
      const added = await cli("inventory:adjust", "SF-CLI-001", "+5", "--reason", "Delivery from the co-packer");
      expect([added.code, added.stderr, added.stdout.trim()]).toEqual([0, "", "Sauce SF-CLI-001 (SF-CLI-001): 10 -> 15 units"]);
      const taken = await cli("inventory:adjust", "SF-CLI-001", "-3", "--reason=Broken bottles");
      expect([taken.code, taken.stdout.trim()]).toEqual([0, "Sauce SF-CLI-001 (SF-CLI-001): 15 -> 12 units"]);
      expect(await stock()).toBe(12);
      const entries = await database.db
        .selectFrom("audit_log")
        .select(["user_id", "entity_id", "changes"])
        .where("action", "=", "product.inventory_adjust")
        .orderBy("created_at")
        .execute();
      expect(entries).toEqual([
        { user_id: null, entity_id: product.id, changes: { delta: 5, reason: "Delivery from the co-packer", before: 10, after: 15 } },
        { user_id: null, entity_id: product.id, changes: { delta: -3, reason: "Broken bottles", before: 15, after: 12 } },
      ]);
    },
    TIMEOUT,
  );

  test(
    "refusals are one line and exit 1, changing nothing: more than there is, an unknown SKU, a DELTA of 0, a reason too long",
    async () => {
      const { stock } = await aSauce("SF-CLI-002", 2);
      const short = await cli("inventory:adjust", "SF-CLI-002", "-3", "--reason", "Broken");
      expect([short.code, short.stdout, short.stderr.trim()]).toEqual([1, "", "Insufficient inventory: Sauce SF-CLI-002 has 2, so 3 cannot be taken"]);
      const unknown = await cli("inventory:adjust", "SF-NOPE", "1", "--reason", "Count");
      expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'No product has the SKU "SF-NOPE"']);
      const zero = await cli("inventory:adjust", "SF-CLI-002", "0", "--reason", "Nothing");
      expect([zero.code, zero.stderr.trim().split("\n").length]).toEqual([1, 1]);
      expect(zero.stderr).toContain("delta: must not be 0");
      // Out of range, it says the range, and nothing about 0 (found by an attack on the back office).
      const huge = await cli("inventory:adjust", "SF-CLI-002", "-99999999", "--reason", "Typo");
      expect([huge.code, huge.stderr.trim()]).toEqual([1, "Error: Invalid request: delta: must be a whole number of units from -1000000 to 1000000"]);
      const long = await cli("inventory:adjust", "SF-CLI-002", "1", "--reason", "x".repeat(201));
      expect([long.code, long.stderr.trim()]).toEqual([1, "Error: Invalid request: reason: must be 1 to 200 characters"]);
      expect(await stock()).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "a DELTA that is no whole number, no --reason or two of them, is a misuse: exit 2 with one line naming how it is called",
    async () => {
      for (const args of [
        ["SF-CLI-001", "five", "--reason", "Count"],
        ["SF-CLI-001", "1.5", "--reason", "Count"],
        ["SF-CLI-001", "1"],
        ["SF-CLI-001", "--reason", "Count"],
        ["SF-CLI-001", "1", "--reason"],
        ["SF-CLI-001", "1", "--reason", "Count", "--force"],
        ["SF-CLI-001", "1", "--reason", "Count", "--reason=Recount"],
      ]) {
        const result = await cli("inventory:adjust", ...args);
        expect({ args, code: result.code, lines: result.stderr.trim().split("\n").length }).toEqual({ args, code: 2, lines: 1 });
        expect(result.stderr).toContain("(usage: npm run cli -- inventory:adjust SKU DELTA --reason TEXT)");
      }
    },
    TIMEOUT,
  );

  test(
    "a product another session holds past the lock limit: exit 1, one line saying what the database said and where to look, and nothing changed",
    async () => {
      const { stock } = await aSauce("SF-CLI-004", 7);
      const holder = new Client({ connectionString: database.url });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select 1 from products where sku = 'SF-CLI-004' for update");
        // The operator's own, shorter limit (PGOPTIONS, as docs/operations.md says), so the test waits 300 ms, not 2 s.
        const held = await runCliHere(
          { DATABASE_URL: database.url, PGOPTIONS: "-c lock_timeout=300ms" },
          "inventory:adjust",
          "SF-CLI-004",
          "+1",
          "--reason",
          "Count",
        );
        expect([held.code, held.stdout, held.stderr.trim().split("\n")]).toEqual([
          1,
          "",
          [
            "Error: What this needs is busy just now; please try again shortly (canceling statement due to lock timeout: another session holds a row " +
              `this needs; docs/operations.md, "A transaction left open on the shop's rows", shows how to find it)`,
          ],
        ]);
      } finally {
        await holder.end();
      }
      expect(await stock()).toBe(7);
    },
    TIMEOUT,
  );
});
