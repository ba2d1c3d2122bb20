import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { migrateToLatest } from "../../src/adapters/db/migrate.ts";
import { migrationProvider } from "../../src/adapters/db/migrations/index.ts";
import { type TestDatabase, createTestDatabase } from "../support/postgres.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.drop());

const at = (hour: number) => new Date(Date.UTC(2026, 2, 1, hour));

async function anOrder(id: string, paymentStatus: string, createdHour: number, updatedHour: number) {
  const address = JSON.stringify({ address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701", country: "US" });
  await sql`insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, total_cents,
      shipping_method, shipping_address, billing_address, created_at, updated_at)
    values (${id}, ${`SF-20260301-${id.toUpperCase()}`}, 'u1', 'CONFIRMED', ${paymentStatus}, 1000, 0, 0, 1000, '', ${address}, ${address},
      ${at(createdHour)}, ${at(updatedHour)})`.execute(database.db);
  await sql`insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents)
    values (${`item-${id}`}, ${id}, 'p1', 'Habanero', 'HAB-1', 'https://images.example.com/h.jpg', 1, 1000, 1000)`.execute(database.db);
}

async function anEntry(orderId: string, action: string, hour: number, changes: Record<string, unknown>) {
  await sql`insert into audit_log (id, action, entity_type, entity_id, changes, created_at)
    values (${crypto.randomUUID()}, ${action}, 'order', ${orderId}, ${JSON.stringify(changes)}, ${at(hour)})`.execute(database.db);
}

const moved = (from: string, to: string) => ({ from: { status: "PENDING", paymentStatus: from }, to: { status: "CONFIRMED", paymentStatus: to } });

test("migration 0014 gives the orders already there their paid and refunded times, from the audit entries that moved their payment; their items a copy of the paid time", async () => {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  const before = names[names.indexOf("0014_sales_report") - 1]!;
  const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo(before);
  expect(error).toBeUndefined();
  await sql`insert into users (id, email, role) values ('u1', 'ada@example.com', 'CUSTOMER')`.execute(database.db);
  await sql`insert into products (id, name, slug, price_cents, sku, featured_image, heat_level, inventory)
    values ('p1', 'Habanero', 'habanero', 1000, 'HAB-1', 'https://images.example.com/h.jpg', 3, 10)`.execute(database.db);

  await anOrder("paid", "PAID", 1, 9);
  await anEntry("paid", "payment.failed", 2, moved("PENDING", "FAILED"));
  await anEntry("paid", "payment.succeeded", 3, moved("FAILED", "PAID"));
  await anEntry("paid", "webhook.stripe", 4, { ...moved("PAID", "PAID"), ignored: "payment is already PAID" });

  await anOrder("unlogged", "PAID", 5, 9);

  await anOrder("webhookrefund", "REFUNDED", 1, 9);
  await anEntry("webhookrefund", "webhook.stripe", 2, moved("PENDING", "PAID"));
  await anEntry("webhookrefund", "webhook.stripe", 7, moved("PAID", "REFUNDED"));

  await anOrder("staffrefund", "REFUNDED", 1, 9);
  await anEntry("staffrefund", "payment.succeeded", 2, moved("PENDING", "PAID"));
  await anEntry("staffrefund", "payment.refunded", 8, { from: "PAID", to: "REFUNDED", reason: "order_ended" });
  await sql`insert into refunds (id, order_id, intent_id, idempotency_key, reason, amount_cents, requested_at, next_attempt_at, confirmed_at)
    values ('r1', 'staffrefund', 'pi_1', 'refund-staffrefund', 'order_ended', 1000, ${at(8)}, ${at(8)}, ${at(8)})`.execute(database.db);

  await anOrder("endedrefund", "REFUNDED", 3, 6);
  await sql`insert into refunds (id, order_id, intent_id, idempotency_key, reason, amount_cents, requested_at, next_attempt_at, confirmed_at)
    values ('r2', 'endedrefund', 'pi_2', 'refund-endedrefund', 'order_ended', 1000, ${at(6)}, ${at(6)}, ${at(6)})`.execute(database.db);

  // Paid after the order was cancelled, and sent straight back: never a sale.
  await anOrder("late", "REFUNDED", 1, 9);
  await anEntry("late", "webhook.stripe", 4, moved("PENDING", "REFUNDED"));
  await anEntry("late", "payment.refunded", 5, { from: "REFUNDED", to: "REFUNDED", reason: "late_payment" });

  await anOrder("unpaid", "FAILED", 1, 2);

  await migrateToLatest(database.db);
  const rows = await sql<{ id: string; paid_at: Date | null; refunded_at: Date | null }>`select id, paid_at, refunded_at from orders order by id`.execute(
    database.db,
  );
  expect(Object.fromEntries(rows.rows.map((r) => [r.id, [r.paid_at, r.refunded_at]]))).toEqual({
    paid: [at(3), null],
    unlogged: [at(5), null],
    webhookrefund: [at(2), at(7)],
    staffrefund: [at(2), at(8)],
    endedrefund: [at(3), at(6)],
    late: [null, at(4)],
    unpaid: [null, null],
  });
  const items = await sql<{ order_id: string; paid_at: Date | null }>`select order_id, paid_at from order_items`.execute(database.db);
  expect(Object.fromEntries(items.rows.map((r) => [r.order_id, r.paid_at]))).toEqual(Object.fromEntries(rows.rows.map((r) => [r.id, r.paid_at])));
});
