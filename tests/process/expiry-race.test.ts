import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { addToCart } from "../../src/application/cart/add-to-cart.ts";
import { placeOrder } from "../../src/application/orders/place-order.ts";
import { DEFAULT_ORDER_SETTINGS } from "../../src/application/orders/settings.ts";
import { NO_ORIGIN } from "../../src/domain/audit.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { eventually } from "../support/eventually.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";
import { outcome, processes } from "../support/processes.ts";
import { auditEntries } from "../support/audit.ts";

const children = processes();
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await children.stopAll();
  await database.drop();
});

test("two sweepers at once (two CLI processes) cancel each expired order once and restore its stock once", async () => {
  const deps = createPgDeps(database.db);
  const sauce = aProduct({ inventory: 100 });
  await deps.repos.products.create(sauce);
  const numbers: string[] = [];
  for (let i = 0; i < 30; i++) {
    const user = aUser();
    await deps.repos.users.create(user);
    const line = await addToCart(deps, user.id, { productId: sauce.id, quantity: 2 }, NO_ORIGIN);
    numbers.push(
      (
        await placeOrder(
          deps,
          DEFAULT_ORDER_SETTINGS,
          user.id,
          { cartItemIds: [line.id], shippingAddress: { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" } },
          NO_ORIGIN,
        )
      ).orderNumber,
    );
  }
  await sql`update orders set created_at = now() - interval '2 hours'`.execute(database.db);
  expect((await deps.repos.products.findById(sauce.id))?.inventory).toBe(40);

  // No lock limit (the shop's is 2 s): on a loaded machine the second sweeper can start later than
  // that after the first began to wait at the barrier below, which then gave up with exit 1.
  const sweep = () =>
    children.spawn([process.execPath, "src/cli/main.ts", "orders:expire"], { DATABASE_URL: database.url, LOG_LEVEL: "silent", PGOPTIONS: "-c lock_timeout=0" });
  // A barrier: the orders table is held until both sweepers wait on it, so they start the sweep together.
  const runs = await database.db.transaction().execute(async (trx) => {
    await sql`lock table orders in access exclusive mode`.execute(trx);
    const started = [outcome(sweep()), outcome(sweep())] as const;
    await eventually(async () => {
      const waiting = await sql<{
        n: string;
      }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
      expect(Number(waiting.rows[0]?.n)).toBe(2);
    }, 20_000);
    return started;
  });
  const [first, second] = await Promise.all(runs);
  expect([first.code, second.code]).toEqual([0, 0]);
  const expiredBy = (output: string) => numbers.filter((n) => output.includes(n));
  const [a, b] = [expiredBy(first.output), expiredBy(second.output)];
  expect(a.filter((n) => b.includes(n))).toEqual([]);
  expect([...a, ...b].sort()).toEqual([...numbers].sort());

  expect((await deps.repos.products.findById(sauce.id))?.inventory).toBe(100);
  expect(await auditEntries(deps.repos.audit, { action: "order.expire" })).toHaveLength(30);
  const statuses = await sql<{ status: string; n: string }>`select status, count(*) as n from orders group by status`.execute(database.db);
  expect(statuses.rows).toEqual([{ status: "CANCELLED", n: "30" }]);
}, 60_000);
