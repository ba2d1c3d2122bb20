import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { demoCatalog } from "../../src/application/catalog/demo-catalog.ts";
import { runCliHere } from "../support/cli.ts";
import { withMigratedDatabase } from "../support/embedded-template.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

// The CLI's db:seed --orders and report:sales, run in this process as its bin runs it
// (tests/support/cli.ts), on a PostgreSQL database of this file's own, then on an embedded one.

const TIMEOUT = 60_000;
const DAY = 86_400_000;
const SHOP_ZONE = "America/Los_Angeles";
let database: TestDatabase;
let embeddedDir: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  embeddedDir = await mkdtemp(join(tmpdir(), "storefront-reports-"));
}, TIMEOUT);
afterAll(async () => {
  await database?.drop();
  await rm(embeddedDir, { recursive: true, force: true });
}, TIMEOUT);

const cli = (databaseUrl: string, ...args: string[]) => run({ DATABASE_URL: databaseUrl }, args);

const run = (env: Record<string, string>, args: string[]) => runCliHere({ SHOP_TIMEZONE: SHOP_ZONE, ...env }, ...args);

/** The day an instant falls on in the shop's zone, as YYYY-MM-DD. */
const shopDay = (at: number) => new Date(at).toLocaleDateString("en-CA", { timeZone: SHOP_ZONE });
/**
 * The whole days, in the shop's zone, from the one the seeded year began on to the one after today.
 * Taken in UTC instead, the first day began up to eight hours after the first orders from 00:00 to
 * 08:00 UTC every day (Los Angeles is still on the day before), and the report left them out.
 */
const lastYear = () => ({ from: shopDay(Date.now() - 365 * DAY), to: shopDay(Date.now() + DAY) });

const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(database.db)).rows[0]!;

describe("db:seed --orders on PostgreSQL", () => {
  test(
    "3,000 orders of a year's history: the catalog first, then orders in sensible proportions, stock untouched, each order whole",
    async () => {
      const seeded = await cli(database.url, "db:seed", "--orders", "3000", "--seed", "11");
      expect(seeded.code).toBe(0);
      expect(seeded.stdout).toMatch(/^Added \d+ products and \d+ locations\nAdded 3000 demo orders over the last 365 days in [\d.]+ s \(seed 11: /);
      const counts = await one(sql<{ orders: string; paid: string; refunded: string; refunds: string; customers: string; lines: string }>`
        select (select count(*) from orders) as orders, (select count(*) from orders where paid_at is not null) as paid,
          (select count(*) from orders where refunded_at is not null and paid_at is not null) as refunded,
          (select count(*) from refunds where confirmed_at is not null) as refunds,
          (select count(distinct user_id) from orders) as customers, (select count(*) from order_items) as lines`);
      const n = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)]));
      expect(n.orders).toBe(3000);
      expect(n.paid! / n.orders!).toBeWithin(0.92, 0.96);
      expect(n.refunded! / n.paid!).toBeWithin(0.025, 0.06);
      expect(n.refunds).toBe(n.refunded);
      expect(n.customers).toBeWithin(500, 800);
      expect(n.lines! / n.orders!).toBeWithin(1.8, 2.8);
      // Every order whole: its lines add up to its subtotal, carry its paid time, and it was paid after it was placed.
      const broken = await one(sql<{ n: string }>`
        select count(*) as n from orders o where o.subtotal_cents <> (select sum(total_price_cents) from order_items i where i.order_id = o.id)
          or exists (select 1 from order_items i where i.order_id = o.id and i.paid_at is distinct from o.paid_at)
          or o.paid_at < o.created_at or o.refunded_at < o.paid_at or o.created_at < now() - interval '366 days'`);
      expect(Number(broken.n)).toBe(0);
      const stock = await sql<{ slug: string; inventory: number }>`select slug, inventory from products order by slug`.execute(database.db);
      expect(stock.rows).toEqual(demoCatalog.products.map(({ slug, inventory }) => ({ slug, inventory })).sort((a, b) => (a.slug < b.slug ? -1 : 1)));
    },
    TIMEOUT,
  );

  test(
    "report:sales over the last year adds up: the series to the totals, the totals to the orders paid and refunded in it",
    async () => {
      const { from, to } = lastYear();
      const res = await cli(database.url, "report:sales", "--from", from, "--to", to, "--interval", "week", "--json");
      expect([res.code, res.stderr]).toEqual([0, ""]);
      const report = JSON.parse(res.stdout);
      expect(report).toMatchObject({ timeZone: "America/Los_Angeles", from, to, interval: "week" });
      const cents = (dollars: number) => Math.round(dollars * 100);
      for (const field of ["orders", "units", "grossSales", "refunds", "netSales", "shipping", "tax"]) {
        const sum = report.series.reduce((total: number, p: Record<string, number>) => total + cents(p[field]!), 0);
        expect({ field, sum }).toEqual({ field, sum: cents(report.totals[field]) });
      }
      const paid = await one(sql<{ orders: string; gross: string; refunds: string }>`
        select (select count(*) from orders where paid_at is not null) as orders, (select sum(subtotal_cents) from orders where paid_at is not null) as gross,
          (select sum(subtotal_cents - discount_cents) from orders where refunded_at is not null and paid_at is not null) as refunds`);
      expect([report.totals.orders, cents(report.totals.grossSales), cents(report.totals.refunds)]).toEqual([
        Number(paid.orders),
        Number(paid.gross),
        Number(paid.refunds),
      ]);
      expect(report.topProducts).toHaveLength(10);
      const table = await cli(database.url, "report:sales", "--from", from, "--to", to, "--interval", "month");
      expect(table.stdout.split("\n")[0]).toBe(`Sales by month, ${from} to ${to} (America/Los_Angeles)`);
      expect(table.stdout).toContain("\ntotal ");
    },
    TIMEOUT,
  );

  test(
    "refused, writing nothing: the same seed again, and made-up orders in a production shop; bad arguments one line with the command's usage (exit 2); a range too long one line (exit 1)",
    async () => {
      const again = await cli(database.url, "db:seed", "--orders", "3000", "--seed", "11");
      expect([again.code, again.stderr.trim()]).toEqual([1, "Error: The demo orders of seed 11 are there already: give another --seed"]);
      expect(Number((await one(sql<{ n: string }>`select count(*) as n from orders`)).n)).toBe(3000);
      for (const args of [
        ["db:seed", "--orders", "many"],
        ["db:seed", "--seed", "3"],
        ["report:sales", "--from", "2026-01-01"],
        ["report:sales", "--from", "2026-01-01", "--to", "2026-01-31", "--interval", "hour"],
      ]) {
        const res = await cli(database.url, ...args);
        const lines = res.stderr.trim().split("\n");
        expect({ args, code: res.code, lines: lines.length, usage: lines[0]!.includes(`(usage: npm run cli -- ${args[0]} `) }).toEqual({
          args,
          code: 2,
          lines: 1,
          usage: true,
        });
      }
      const tooLong = await cli(database.url, "report:sales", "--from", "2025-01-01", "--to", "2026-12-31");
      expect([tooLong.code, tooLong.stdout, tooLong.stderr.trim()]).toEqual([1, "", "Error: Invalid request: to: must be at most 366 days after from"]);
      const production = {
        DATABASE_URL: database.url,
        NODE_ENV: "production",
        AUTH_SECRET: "a-production-secret-for-the-reports-test",
        STRIPE_SECRET_KEY: "sk_test_reports",
      };
      const live = await run(production, ["db:seed", "--orders", "10"]);
      expect([live.code, live.stdout, live.stderr.trim()]).toEqual([1, "", "db:seed --orders makes up orders: not on a production shop (NODE_ENV=production)"]);
      expect(Number((await one(sql<{ n: string }>`select count(*) as n from orders`)).n)).toBe(3000);
    },
    TIMEOUT,
  );
});

test(
  "db:seed --orders and report:sales on the embedded database",
  async () => {
    // Its subject is the seeding, not making an embedded database: it starts from a migrated copy.
    const url = `pglite://${join(withMigratedDatabase(embeddedDir), "pglite")}`;
    const seeded = await cli(url, "db:seed", "--orders", "400", "--seed", "5");
    expect([seeded.code, seeded.stdout]).toEqual([0, expect.stringMatching(/Added 400 demo orders .* \(seed 5: /)]);
    const { from, to } = lastYear();
    const report = JSON.parse((await cli(url, "report:sales", "--from", from, "--to", to, "--interval", "month", "--json")).stdout);
    // About 6 % never paid.
    expect(report.totals.orders).toBeWithin(360, 390);
  },
  TIMEOUT,
);
