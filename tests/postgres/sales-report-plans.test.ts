import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgSalesRepository } from "../../src/adapters/db/sales-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { boundsOf, reportPeriods } from "../../src/domain/report.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];
const until = new Date("2026-11-20T12:00:00Z");

beforeAll(async () => {
  database = await createTestDatabase({ history: { orders: 30_000, customers: 3_000, until } });
  ({ db: spy, ran } = recordingDb(database, 3));
}, 30_000);
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

// A year of days: the report bench:admin measures.
const year = boundsOf(reportPeriods({ from: "2025-11-21", to: "2026-11-20", interval: "day" }, "America/New_York"));

test("a year's daily sums are read period by period from the paid orders' index, even in the plan made once: no sort or hash of the year's orders (PostgreSQL)", async () => {
  const plan = await genericPlanOf(
    spy,
    ran,
    () => createPgSalesRepository(spy).salesIn(year, 10),
    (query) => query.sql.includes("count(*) as orders, sum(units)"),
  );
  // Grouped by a period computed for every row, this plan sorted the year's orders to group them, and spilled to disk.
  expect(plan).toContain("Index Only Scan using orders_paid_at_idx");
  expect(plan).toMatch(/Index Cond: \(\(paid_at >= /);
  expect(plan).not.toMatch(/(Sort|Group) Key: .*paid_at/);
  expect(plan).not.toContain("HashAggregate");
});

test("the report's figures from those ranges are the orders' own sums, and its units their lines' quantities", async () => {
  const { sold } = await createPgSalesRepository(spy).salesIn(year, 10);
  const expected = await sql<{ orders: string; units: string; subtotal: string }>`
    select count(*) as orders, (select sum(i.quantity) from order_items i join orders o on o.id = i.order_id
      where o.paid_at >= ${year[0]!} and o.paid_at < ${year.at(-1)!}) as units, sum(subtotal_cents) as subtotal
    from orders where paid_at >= ${year[0]!} and paid_at < ${year.at(-1)!}`.execute(database.db);
  const totals = sold.reduce((sum, day) => ({ orders: sum.orders + day.orders, units: sum.units + day.units, subtotal: sum.subtotal + day.subtotal }), {
    orders: 0,
    units: 0,
    subtotal: 0,
  });
  const row = expected.rows[0]!;
  expect(totals).toEqual({ orders: Number(row.orders), units: Number(row.units), subtotal: Number(row.subtotal) });
  expect(totals.orders).toBeGreaterThan(10_000);
  // Days in order, each once, none empty.
  expect(sold.map((day) => day.period)).toEqual([...new Set(sold.map((day) => day.period))].sort((a, b) => a - b));
  expect(sold.every((day) => day.orders > 0)).toBe(true);
});

test("settled, a year of days is summed once and kept: the next report reads 365 rows and their best sellers, no order, and gives the same figures", async () => {
  const settled = new Date(year.at(-1)!.getTime() + 3_600_000);
  const summed = await createPgSalesRepository(spy).salesIn(year, 10);
  expect(await createPgSalesRepository(spy).salesIn(year, 10, settled)).toEqual(summed);
  const kept = await sql<{ periods: string; products: string }>`
    select (select count(*) from sales_periods) as periods, (select count(distinct product_id) from sales_period_products) as products`.execute(database.db);
  expect(kept.rows[0]).toEqual({ periods: String(year.length - 1), products: "40" });

  ran.length = 0;
  expect(await createPgSalesRepository(spy).salesIn(year, 10, settled)).toEqual(summed);
  expect(ran.some((query) => query.sql.includes("sales_periods"))).toBe(true);
  expect(ran.filter((query) => /\bfrom orders\b/.test(query.sql))).toEqual([]);
  // The lines after the settled days: none, as the range is empty.
  expect(ran.filter((query) => query.sql.includes("from order_items")).map((query) => query.parameters.slice(-3, -1))).toEqual([
    [year.at(-1)!.toISOString(), year.at(-1)!.toISOString()],
  ]);
});

test("reports asking at once for the same settled weeks each get the figures, without error, and the weeks are kept", async () => {
  const weeks = boundsOf(reportPeriods({ from: "2026-01-05", to: "2026-06-28", interval: "week" }, "America/New_York"));
  const settled = new Date("2026-11-20T00:00:00Z");
  const summed = await createPgSalesRepository(spy).salesIn(weeks, 10);
  const reports = await Promise.all(Array.from({ length: 4 }, () => createPgSalesRepository(spy).salesIn(weeks, 10, settled)));
  for (const report of reports) expect(report).toEqual(summed);
  const kept = await sql<{ periods: string }>`
    select count(*) as periods from sales_periods where period_start >= ${weeks[0]!} and period_end <= ${weeks.at(-1)!}
      and period_end - period_start > interval '6 days'`.execute(database.db);
  expect(kept.rows[0]?.periods).toBe(String(weeks.length - 1));
});
