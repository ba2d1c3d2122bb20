import { type Kysely, sql } from "kysely";

// Frozen. The sales report's units of each period were summed over every order line paid in the
// range (440,000 lines for a year of 200,000 orders), grouped by period and product at once for
// the best sellers too: 100 to 130 ms of the report's 160 ms in the database. An order now keeps
// its units (the sum of its lines' quantities, written with it; its lines never change), and the
// index of paid orders holds them, so a period's units come with its other sums from that index, and
// the lines are grouped by product alone.
// The column stays nullable: during a rolling restart after this migration, an instance still on
// the code before it writes orders without their units, and must go on taking checkouts. The report
// counts the units of such an order from its lines (sales-repository.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("units", "integer").execute();
  await sql`update orders o set units = coalesce((select sum(i.quantity) from order_items i where i.order_id = o.id), 0)`.execute(db);
  await db.schema.dropIndex("orders_paid_at_idx").execute();
  await sql`create index orders_paid_at_idx on orders (paid_at) include (subtotal_cents, discount_cents, shipping_cents, tax_cents, units)
    where paid_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("orders_paid_at_idx").execute();
  await sql`create index orders_paid_at_idx on orders (paid_at) include (subtotal_cents, discount_cents, shipping_cents, tax_cents)
    where paid_at is not null`.execute(db);
  await db.schema.alterTable("orders").dropColumn("units").execute();
}
