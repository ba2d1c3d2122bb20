import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import { createPgSalesRepository } from "../../src/adapters/db/sales-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import { boundsOf, reportPeriods } from "../../src/domain/report.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, poolOn } from "../support/postgres.ts";
import { seedOrderHistory } from "../support/seed-orders.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
const ran: CompiledQuery[] = [];
const until = new Date("2026-11-20T12:00:00Z");

beforeAll(async () => {
  database = await createTestDatabase();
  await seedOrderHistory(database.db, { orders: 20_000, customers: 2_000, until });
  await sql`update orders set paid_at = created_at + interval '5 minutes' where payment_status in ('PAID', 'REFUNDED')`.execute(database.db);
  await sql`update order_items i set paid_at = o.paid_at from orders o where o.id = i.order_id`.execute(database.db);
  await sql`vacuum analyze orders, order_items`.execute(database.db);
  spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: poolOn(database, 3) }),
    log: (event) => void (event.level === "query" && ran.push(event.query)),
  });
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
