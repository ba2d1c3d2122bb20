import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { createPgSalesRepository } from "../../src/adapters/db/sales-repository.ts";
import { createPgRepositories } from "../../src/adapters/db/store.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { anOrderOf, recordSale } from "../support/sales-history.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

const at = (iso: string) => new Date(iso);
const DAY = [at("2026-03-07T00:00:00Z"), at("2026-03-08T00:00:00Z")];
const SETTLED = at("2026-04-01T00:00:00Z");

/** Whether some statement on the database waits for a lock held by another (the report's keep, behind the history's transaction). */
async function aStatementWaitsForALock(): Promise<boolean> {
  const { rows } = await sql<{ waiting: string }>`
    select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
  return Number(rows[0]?.waiting) > 0;
}

test("a report that summed a settled day while a history of that day was being written keeps nothing: the next report counts the history (PostgreSQL)", async () => {
  const repos = createPgRepositories(database.db);
  const ada = aUser();
  const chipotle = aProduct({ name: "Chipotle", price: 1000 });
  await repos.users.create(ada);
  await repos.products.create(chipotle);
  await recordSale(repos, anOrderOf(ada.id, [[chipotle, 1]], 0, at("2026-03-07T11:00:00Z")), at("2026-03-07T12:00:00Z"));

  const late = { ...anOrderOf(ada.id, [[chipotle, 3]], 0, at("2026-03-07T12:30:00Z")), status: "DELIVERED" as const, paymentStatus: "PAID" as const };
  let commit = () => {};
  const committed = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let written = () => {};
  const historyWritten = new Promise<void>((resolve) => {
    written = resolve;
  });
  // The history's transaction: written, not yet committed, until the report has summed the day without it.
  const history = database.db.transaction().execute(async (tx) => {
    await createPgSalesRepository(tx).importHistory({ customers: [], orders: [{ ...late, paidAt: at("2026-03-07T13:00:00Z") }], refunds: [] });
    written();
    await committed;
  });
  await historyWritten;
  const first = createPgSalesRepository(database.db).salesIn(DAY, 10, SETTLED);
  let firstDone = false;
  void first.then(() => (firstDone = true));
  // The report sums the day (the history unseen), then would keep it: it must wait for the history's end.
  // Until it does (or, on code that does not wait, until it is done), however long a loaded machine takes.
  while (!firstDone && !(await aStatementWaitsForALock())) await Bun.sleep(2);
  commit();
  await history;
  // That report was summed before the history landed; its best sellers, read after, count it whole (it kept nothing).
  const during = await first;
  expect(during.sold).toEqual([{ period: 0, orders: 1, units: 1, subtotal: 1000, discount: 0, shipping: 699, tax: 0 }]);
  expect(during.topProducts).toEqual([{ productId: chipotle.id, name: "Chipotle", sku: chipotle.sku, units: 4, revenue: 4000 }]);

  const after = await createPgSalesRepository(database.db).salesIn(DAY, 10, SETTLED);
  expect(after.sold).toEqual([{ period: 0, orders: 2, units: 4, subtotal: 4000, discount: 0, shipping: 1398, tax: 0 }]);
  expect(after.topProducts).toEqual([{ productId: chipotle.id, name: "Chipotle", sku: chipotle.sku, units: 4, revenue: 4000 }]);
  expect(await createPgSalesRepository(database.db).salesIn(DAY, 10, SETTLED)).toEqual(after);
});
