import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { createPgOrderRepository } from "../../src/adapters/db/order-repository.ts";
import type { Database } from "../../src/adapters/db/tables.ts";
import type { OrderQueueFilter } from "../../src/application/ports/orders.ts";
import { type TestDatabase, createTestDatabase, genericPlanOf, recordingDb } from "../support/postgres.ts";

let database: TestDatabase;
let spy: Kysely<Database>;
let ran: CompiledQuery[];
const customer = (n: number) => `u${String(n).padStart(23, "0")}`;

beforeAll(async () => {
  // Enough orders that the planner would scan and sort the table without the right index.
  database = await createTestDatabase({ history: { orders: 30_000, customers: 3_000, until: new Date("2026-11-20T12:00:00Z") } });
  ({ db: spy, ran } = recordingDb(database, 2));
}, 60_000);
afterAll(async () => {
  await spy.destroy();
  await database.drop();
});

/**
 * The plans PostgreSQL picks for the statements the first page of the queue ran: its page, then its
 * count (which, with no filter, reads every order whichever way it goes).
 */
async function plansOfFirstPage(filter: OrderQueueFilter): Promise<string[]> {
  ran.length = 0;
  await createPgOrderRepository(spy).queue(filter, { page: 1, limit: 20 });
  const ofOrders = ran.filter((query) => query.sql.includes('"orders"') && !query.sql.includes('"order_items"'));
  const queries = [ofOrders.filter((query) => !query.sql.includes("count(*)")), ofOrders.filter((query) => query.sql.includes("count(*)"))].flat();
  expect(queries).toHaveLength(2);
  return Promise.all(
    queries.map(async (query) => {
      const { rows } = await spy.executeQuery<{ "QUERY PLAN": string }>({ ...query, sql: `explain ${query.sql}` });
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    }),
  );
}

const FILTERS: Array<[string, OrderQueueFilter]> = [
  ["no filter", {}],
  ["status", { statuses: ["PROCESSING"] }],
  ["payment status", { paymentStatuses: ["FAILED"] }],
  ["q: part of a customer's e-mail", { q: "customer1234@" }],
  ["q: part of an order number", { q: "-0A1" }],
  ["from and to", { from: new Date("2026-11-01T00:00:00Z"), to: new Date("2026-11-08T00:00:00Z") }],
  ["customer", { customerId: customer(77) }],
];

for (const [name, filter] of FILTERS) {
  test(`the queue's first page, filtered by ${name}, reads orders through an index, never the whole table (PostgreSQL)`, async () => {
    const [page, count] = await plansOfFirstPage(filter);
    for (const plan of name === "no filter" ? [page] : [page, count]) {
      expect(plan).not.toContain("Seq Scan on orders");
      expect(plan).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
    }
  });
}

// Every customer's e-mail holds "customer", far more customers than are looked up one by one: the
// page then walks the orders newest first (the other shape of q; every case above takes the first).
test("q matching more customers than are looked up by id: the same first pages as the whole queue, read through an index; a few customers, through theirs (PostgreSQL)", async () => {
  const queue = createPgOrderRepository(spy);
  for (const page of [1, 3]) {
    const [everyone, all] = await Promise.all([queue.queue({ q: "CUSTOMER" }, { page, limit: 20 }), queue.queue({}, { page, limit: 20 })]);
    expect(everyone.total).toBe(30_000);
    expect(everyone.items.map((order) => order.id)).toEqual(all.items.map((order) => order.id));
  }
  const [page] = await plansOfFirstPage({ q: "customer" });
  expect(page).not.toContain("Seq Scan on orders");
  expect(page).toContain("orders_created_idx");
  // One customer's part of an e-mail: that customer's orders, from the customer index.
  const [few] = await plansOfFirstPage({ q: "customer1234@" });
  expect(few).toContain("orders_user_created_idx");
});

// Every checkout counts its customer's unpaid orders. Its statuses are written into the statement, so
// the plan made for all customers reads the partial index of PENDING orders by customer. With them as
// parameters it read the customer's whole history, and under the checkout bench (a young table) 770
// pages a checkout where it now reads 2 or 3.
test("a customer's unpaid orders are read from the index of PENDING orders by customer, even in the plan made once for all customers (PostgreSQL)", async () => {
  const orders = createPgOrderRepository(spy);
  const plan = await genericPlanOf(spy, ran, () => orders.unpaidOf(customer(77), 3));
  expect(plan).toContain("orders_pending_by_user_idx");
  expect(plan).not.toContain("Seq Scan");
});

test("housekeeping's unpaid and intent-less orders are read from an index of PENDING orders, even in the plan made once (PostgreSQL)", async () => {
  const orders = createPgOrderRepository(spy);
  const at = new Date("2026-11-20T12:00:00Z");
  for (const run of [() => orders.findUnpaidBefore(at, 100), () => orders.findWithoutIntentBy(at, 100)]) {
    const plan = await genericPlanOf(spy, ran, run);
    expect(plan).not.toContain("Seq Scan");
    expect(plan).toMatch(/orders_pending_created_idx|orders_status_created_idx/);
  }
});

test("a page past the last reads no order: the count says so first, and the page is empty with the total (PostgreSQL)", async () => {
  for (const filter of [{ q: "customer" }, {}]) {
    ran.length = 0;
    const past = await createPgOrderRepository(spy).queue(filter, { page: 90_071_992_547_409, limit: 100 });
    expect([past.items, past.total]).toEqual([[], 30_000]);
    expect(ran.filter((query) => query.sql.includes('"orders"') && !query.sql.includes("count(*)"))).toEqual([]);
  }
  // The last page still has its orders.
  const last = await createPgOrderRepository(spy).queue({ q: "customer" }, { page: 300, limit: 100 });
  expect(last.items).toHaveLength(100);
});

/** Every line an export gives for the filter, its order ids, and the statements it ran. */
async function exported(filter: OrderQueueFilter, batchSize = 2_000) {
  ran.length = 0;
  const orderIds: string[] = [];
  for await (const batch of createPgOrderRepository(spy).exportLines(filter, batchSize)) for (const line of batch) orderIds.push(line.order.id);
  return { orderIds, statements: [...ran] };
}

test("an export with q looks its customers up once, not once a batch, and gives the lines the search matches (PostgreSQL)", async () => {
  // A month of the year's orders (some 2,500 and their lines, several batches), not all 30,000 twice.
  const month = { from: new Date("2026-10-20T12:00:00Z"), to: new Date("2026-11-20T12:00:00Z") };
  const all = await exported(month);
  // Every customer's e-mail holds "customer": more than are looked up by id, so each order's own customer is tested.
  const everyone = await exported({ ...month, q: "Customer" });
  // One customer's part of an e-mail: the few looked up, their orders taken by id.
  const one = await exported({ q: "customer1234@" }, 3);
  const expected = await database.db
    .selectFrom("orders")
    .innerJoin("order_items", "order_items.order_id", "orders.id")
    .innerJoin("users", "users.id", "orders.user_id")
    .select("orders.id")
    .where("users.email", "ilike", "%customer1234@%")
    .execute();
  expect(everyone.orderIds).toEqual(all.orderIds);
  expect(new Set(all.orderIds).size).toBeGreaterThan(2_000);
  expect(one.orderIds.toSorted()).toEqual(expected.map((row) => row.id).toSorted());
  expect(one.orderIds.length).toBeGreaterThan(0);
  for (const { statements } of [everyone, one]) {
    const lookUps = statements.filter((query) => /^select "users"\."id" from "users"/.test(query.sql));
    const batches = statements.filter((query) => query.sql.includes("json_build_array"));
    expect([lookUps.length, batches.length > 1]).toEqual([1, true]);
    for (const batch of batches) expect(batch.sql).not.toContain('from "users" where');
  }
});

// Staff filter the queue by one status or payment status. As `any(array)` the plan made once for
// every value guessed most orders match, walked every order newest first and filtered them: the few
// PENDING orders of 200,000 took 17,600 pages and 140 ms. One value is a plain parameter, read from
// its status's index newest first.
test("the queue filtered by one status or payment status reads that status's index newest first, even in the plan made once (PostgreSQL)", async () => {
  const orders = createPgOrderRepository(spy);
  const isPage = (query: CompiledQuery) => query.sql.includes('"orders"') && !query.sql.includes("count(*)") && !query.sql.includes('"order_items"');
  for (const [filter, index] of [
    [{ statuses: ["PENDING"] }, "orders_status_created_idx"],
    [{ paymentStatuses: ["REFUNDED"] }, "orders_payment_status_created_idx"],
  ] as const) {
    const plan = await genericPlanOf(spy, ran, () => orders.queue(filter, { page: 1, limit: 20 }), isPage);
    expect(plan).toContain(index);
    expect(plan).not.toContain("Seq Scan on orders");
    expect(plan).not.toMatch(/orders_created_idx on orders[^\n]*\n\s+Filter/);
  }
});

// Housekeeping claims the orders whose intent is due to be stopped, a batch at a time. Joined to the
// claim alone, the plan made once for every limit took the claim for a tenth of the orders marked
// and hashed the whole table to find them: 14,000 pages and 170 ms of 200,000 orders, each tick with
// a stop due. The claimed ids are looked up by the key.
test("housekeeping's claim of the intent stops due finds its orders by their key, even in the plan made once (PostgreSQL)", async () => {
  // Many orders marked, due long after the test, so that the planner knows the index holds some.
  const later = new Date("2100-01-01T00:00:00Z");
  await sql`update orders set intent_stop_due_at = ${later} where stripe_payment_intent_id is not null and id in (select id from orders order by id limit 20000)`.execute(
    spy,
  );
  await sql`analyze orders`.execute(spy);
  try {
    const orders = createPgOrderRepository(spy);
    const plan = await genericPlanOf(spy, ran, () => orders.claimIntentStopsDue(new Date("2026-11-20T12:00:00Z"), new Date("2026-11-20T12:01:00Z"), 20));
    expect(plan).not.toContain("Seq Scan on orders");
    expect(plan).toContain("orders_pkey");
  } finally {
    await sql`update orders set intent_stop_due_at = null where intent_stop_due_at = ${later}`.execute(spy);
    await sql`analyze orders`.execute(spy);
  }
});
