import { sql } from "kysely";
import type { HistoryBatch } from "../../application/ports/sales.ts";
import { unitsOf } from "../../domain/order.ts";
import type { Db } from "./database.ts";

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** Each column of the rows as one array, for unnest: a batch is a few statements whatever its size. */
const columns = <T, K extends string>(rows: readonly T[], pick: Record<K, (row: T) => unknown>) =>
  Object.fromEntries(Object.entries<(row: T) => unknown>(pick).map(([name, of]) => [name, rows.map(of)])) as Record<K, unknown[]>;

export async function importHistory(db: Db, { customers, orders, refunds }: HistoryBatch): Promise<number> {
  const u = columns(customers, {
    id: (c) => c.id,
    email: (c) => c.email,
    name: (c) => c.name,
    hash: (c) => c.passwordHash,
    role: (c) => c.role,
    image: (c) => c.image,
    verified: (c) => c.isEmailVerified,
    created: (c) => iso(c.createdAt),
    updated: (c) => iso(c.updatedAt),
  });
  await sql`
    insert into users (id, email, name, password_hash, role, image, is_email_verified, created_at, updated_at)
    select * from unnest(${u.id}::text[], ${u.email}::text[], ${u.name}::text[], ${u.hash}::text[], ${u.role}::text[], ${u.image}::text[],
      ${u.verified}::boolean[], ${u.created}::timestamptz[], ${u.updated}::timestamptz[])
    on conflict do nothing`.execute(db);

  const o = columns(orders, {
    id: (x) => x.id,
    number: (x) => x.orderNumber,
    user: (x) => x.userId,
    status: (x) => x.status,
    payment: (x) => x.paymentStatus,
    subtotal: (x) => x.subtotal,
    shipping: (x) => x.shippingCost,
    tax: (x) => x.tax,
    discount: (x) => x.discountAmount,
    total: (x) => x.total,
    units: (x) => unitsOf(x),
    method: (x) => x.shippingMethod,
    shipTo: (x) => JSON.stringify(x.shippingAddress),
    billTo: (x) => JSON.stringify(x.billingAddress),
    tracking: (x) => x.trackingNumber,
    notes: (x) => x.customerNotes,
    intent: (x) => x.stripePaymentIntentId,
    attempts: (x) => x.paymentAttempts,
    started: (x) => iso(x.paymentStartedAt),
    via: (x) => x.paidVia,
    reference: (x) => x.paidReference,
    paid: (x) => iso(x.paidAt),
    refunded: (x) => iso(x.refundedAt),
    created: (x) => iso(x.createdAt),
    updated: (x) => iso(x.updatedAt),
  });
  const lines = orders.flatMap((order) => order.items.map((item, position) => ({ ...item, orderId: order.id, position, paidAt: order.paidAt })));
  const i = columns(lines, {
    id: (x) => x.id,
    order: (x) => x.orderId,
    product: (x) => x.productId,
    name: (x) => x.productName,
    sku: (x) => x.productSku,
    image: (x) => x.productImage,
    quantity: (x) => x.quantity,
    unit: (x) => x.unitPrice,
    total: (x) => x.totalPrice,
    position: (x) => x.position,
    paid: (x) => iso(x.paidAt),
  });
  const r = columns(refunds, {
    id: (x) => x.id,
    order: (x) => x.orderId,
    intent: (x) => x.intentId,
    key: (x) => x.idempotencyKey,
    reason: (x) => x.reason,
    amount: (x) => x.amount,
    requested: (x) => iso(x.requestedAt),
    attempts: (x) => x.attempts,
    next: (x) => iso(x.nextAttemptAt),
    error: (x) => x.lastError,
    confirmed: (x) => iso(x.confirmedAt),
    processorId: (x) => x.processorRefundId,
  });
  // Orders written with past times change periods the sales report has kept as settled: it forgets them all
  // below, and first moves the generation on, which waits for a report keeping periods at this moment and
  // makes any report that began before this commit keep nothing (sales-repository.ts, keep).
  await sql`update sales_periods_generation set generation = generation + 1`.execute(db);
  // An order whose id, number or intent is taken is left out (on conflict do nothing), and its items and refunds with it.
  const { rows } = await sql<{ written: string | number }>`
    with created as (
      insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, discount_cents,
        total_cents, units, shipping_method, shipping_address, billing_address, tracking_number, customer_notes, stripe_payment_intent_id,
        payment_attempts, payment_started_at, paid_via, paid_reference, paid_at, refunded_at, created_at, updated_at)
      select * from unnest(${o.id}::text[], ${o.number}::text[], ${o.user}::text[], ${o.status}::text[], ${o.payment}::text[],
        ${o.subtotal}::int[], ${o.shipping}::int[], ${o.tax}::int[], ${o.discount}::int[], ${o.total}::int[], ${o.units}::int[], ${o.method}::text[],
        ${o.shipTo}::jsonb[], ${o.billTo}::jsonb[], ${o.tracking}::text[], ${o.notes}::text[], ${o.intent}::text[], ${o.attempts}::int[],
        ${o.started}::timestamptz[], ${o.via}::text[], ${o.reference}::text[], ${o.paid}::timestamptz[], ${o.refunded}::timestamptz[], ${o.created}::timestamptz[],
        ${o.updated}::timestamptz[])
      on conflict do nothing
      returning id
    ), items as (
      insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents,
        position, paid_at)
      select i.* from unnest(${i.id}::text[], ${i.order}::text[], ${i.product}::text[], ${i.name}::text[], ${i.sku}::text[], ${i.image}::text[],
        ${i.quantity}::int[], ${i.unit}::int[], ${i.total}::int[], ${i.position}::smallint[], ${i.paid}::timestamptz[])
        as i(id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents, position, paid_at)
      where i.order_id in (select id from created)
    ), refunds_made as (
      insert into refunds (id, order_id, intent_id, idempotency_key, reason, amount_cents, requested_at, attempts, next_attempt_at, last_error, confirmed_at, processor_refund_id)
      select r.* from unnest(${r.id}::text[], ${r.order}::text[], ${r.intent}::text[], ${r.key}::text[], ${r.reason}::text[], ${r.amount}::int[],
        ${r.requested}::timestamptz[], ${r.attempts}::int[], ${r.next}::timestamptz[], ${r.error}::text[], ${r.confirmed}::timestamptz[], ${r.processorId}::text[])
        as r(id, order_id, intent_id, idempotency_key, reason, amount_cents, requested_at, attempts, next_attempt_at, last_error, confirmed_at,
          processor_refund_id)
      where r.order_id in (select id from created)
    ), forgotten as (
      delete from sales_periods
    )
    select count(*) as written from created`.execute(db);
  return Number(rows[0]?.written ?? 0);
}
