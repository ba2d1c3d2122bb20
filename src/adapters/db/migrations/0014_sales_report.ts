import { type Kysely, sql } from "kysely";

// Frozen. The sales report (decisions §12) counts an order when its payment succeeded and a refund
// when it was made: an order keeps both times, stamped by the write that moves its payment to
// PAID, and to REFUNDED. Its items keep a copy of the paid time, so the report reads a year's lines
// by time from one index instead of joining them to their orders (250 ms and more for 200,000 orders). Orders from before are given them from their audit entries: the first
// that moved the payment there (every payment entry records the statuses it moved from and to;
// a confirmed refund's entry, the payment status alone). An order paid with no such entry is taken
// as paid when it was placed (an order is paid within the hour or expires); one refunded with none,
// at its last change (a refunded order has ended, and moves no more).

/** An audit entry of the order that moved its payment to `status`, in either shape. */
const movedTo = (status: string) => sql`
  a.entity_type = 'order' and a.entity_id = o.id and (
    (a.changes -> 'to' ->> 'paymentStatus' = ${status} and a.changes -> 'from' ->> 'paymentStatus' is distinct from ${status})
    or (a.action = 'payment.refunded' and a.changes ->> 'to' = ${status} and a.changes ->> 'from' is distinct from ${status}))`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("paid_at", "timestamptz").addColumn("refunded_at", "timestamptz").execute();
  // A refunded payment was paid first when an entry says so, or when staff ended it paid (its refund is the order's own).
  await sql`
    update orders o set paid_at = coalesce((select min(a.created_at) from audit_log a where ${movedTo("PAID")}), o.created_at)
    where o.payment_status = 'PAID'
      or (o.payment_status = 'REFUNDED' and (
        exists (select 1 from audit_log a where ${movedTo("PAID")})
        or exists (select 1 from refunds r where r.order_id = o.id and r.reason = 'order_ended')))`.execute(db);
  await db.schema.alterTable("order_items").addColumn("paid_at", "timestamptz").execute();
  await sql`update order_items i set paid_at = o.paid_at from orders o where o.id = i.order_id and o.paid_at is not null`.execute(db);
  await sql`
    update orders o set refunded_at = coalesce((select min(a.created_at) from audit_log a where ${movedTo("REFUNDED")}), o.updated_at)
    where o.payment_status = 'REFUNDED'`.execute(db);
  // The report sums these columns over a range of times: each index holds them, so the sums read the index alone.
  await sql`create index orders_paid_at_idx on orders (paid_at) include (subtotal_cents, discount_cents, shipping_cents, tax_cents)
    where paid_at is not null`.execute(db);
  await sql`create index orders_refunded_at_idx on orders (refunded_at) include (subtotal_cents, discount_cents, shipping_cents, tax_cents)
    where refunded_at is not null and paid_at is not null`.execute(db);
  await sql`create index order_items_paid_at_idx on order_items (paid_at) include (product_id, quantity, total_price_cents)
    where paid_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("order_items_paid_at_idx").execute();
  await db.schema.alterTable("order_items").dropColumn("paid_at").execute();
  await db.schema.dropIndex("orders_refunded_at_idx").execute();
  await db.schema.dropIndex("orders_paid_at_idx").execute();
  await db.schema.alterTable("orders").dropColumn("refunded_at").dropColumn("paid_at").execute();
}
