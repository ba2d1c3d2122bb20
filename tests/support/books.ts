import { sql } from "kysely";
import type { Db } from "../../src/adapters/db/database.ts";
import type { StripeTestServer } from "./stripe-server.ts";

/** Orders that hold their goods: not cancelled, and not refunded (no test here ships, so a refund always restocked). */
const LIVE = ["PENDING", "CONFIRMED", "PROCESSING", "SHIPPED", "DELIVERED"];

/**
 * The shop's books held against themselves and against the processor's own (the Stripe test
 * server's intents, charges and refunds), after a fault: every problem found, in words, so a test
 * expects none and a failure names them all.
 * - Stock: every unit of each product is on its shelf or in a live order (`initialStock`).
 * - Orders: each has its items, and was made once (one `order.create` audit entry).
 * - Money: no order is charged twice; every charge the processor made belongs to a PAID order, or
 *   was refunded; every PAID order was charged; no charge is refunded twice, nor more than it took;
 *   an order whose payment is REFUNDED got its money back.
 */
export async function problemsInBooks(db: Db, stripe: StripeTestServer, initialStock: ReadonlyMap<string, number>): Promise<string[]> {
  const problems: string[] = [];
  const products = await db.selectFrom("products").select(["id", "inventory"]).execute();
  const held = await sql<{ product_id: string; units: string }>`
    select product_id, sum(quantity) as units from order_items join orders on orders.id = order_items.order_id
    where orders.status in (${sql.join(LIVE)}) group by product_id`.execute(db);
  for (const { id, inventory } of products) {
    const initial = initialStock.get(id);
    if (initial === undefined) continue;
    const inOrders = Number(held.rows.find((row) => row.product_id === id)?.units ?? 0);
    if (inventory + inOrders !== initial) problems.push(`product ${id}: ${inventory} on the shelf + ${inOrders} in live orders != ${initial}`);
  }

  const orders = await db.selectFrom("orders").select(["id", "order_number", "status", "payment_status", "total_cents"]).execute();
  const itemless = await sql<{ id: string }>`select id from orders where not exists (select 1 from order_items where order_id = orders.id)`.execute(db);
  for (const { id } of itemless.rows) problems.push(`order ${id} has no items`);
  const made = await sql<{ entity_id: string; n: string }>`
    select entity_id, count(*) as n from audit_log where action = 'order.create' group by entity_id`.execute(db);
  const madeTimes = new Map(made.rows.map((row) => [row.entity_id, Number(row.n)]));
  for (const order of orders) if (madeTimes.get(order.id) !== 1) problems.push(`order ${order.order_number} was made ${madeTimes.get(order.id) ?? 0} times`);

  const byId = new Map(orders.map((order) => [order.id, order]));
  const paidCharges = [...stripe.charges.values()].filter((charge) => charge.paid);
  const chargesOf = new Map<string, typeof paidCharges>();
  for (const charge of paidCharges) {
    const orderId = stripe.intents.get(charge.payment_intent)?.metadata.orderId ?? "";
    chargesOf.set(orderId, [...(chargesOf.get(orderId) ?? []), charge]);
  }
  const refundsOf = (chargeId: string) => stripe.refunds.filter((refund) => refund.charge === chargeId);
  for (const [orderId, charges] of chargesOf) {
    const order = byId.get(orderId);
    if (!order) {
      problems.push(`charges ${charges.map((c) => c.id).join(", ")} belong to no order (${orderId || "no order id"})`);
      continue;
    }
    if (charges.length > 1) problems.push(`order ${order.order_number} was charged ${charges.length} times`);
    for (const charge of charges) {
      const refunds = refundsOf(charge.id);
      if (refunds.length > 1) problems.push(`charge ${charge.id} of order ${order.order_number} was refunded ${refunds.length} times`);
      if (charge.amount_refunded > charge.amount) problems.push(`charge ${charge.id} refunded ${charge.amount_refunded} of ${charge.amount}`);
      const refunded = charge.amount_refunded === charge.amount;
      if (!refunded && order.payment_status !== "PAID")
        problems.push(`order ${order.order_number} was charged ${charge.amount} (not refunded), but its payment is ${order.payment_status}`);
    }
  }
  for (const order of orders) {
    const charges = chargesOf.get(order.id) ?? [];
    if (order.payment_status === "PAID" && charges.length === 0) problems.push(`order ${order.order_number} is PAID, but the processor took nothing`);
    if (order.payment_status === "PAID" && charges.some((charge) => charge.amount !== order.total_cents))
      problems.push(`order ${order.order_number} totals ${order.total_cents}, but was charged ${charges.map((c) => c.amount).join(", ")}`);
    if (order.payment_status === "REFUNDED" && !charges.some((charge) => charge.amount_refunded === charge.amount))
      problems.push(`order ${order.order_number}'s payment is REFUNDED, but the processor gave nothing back`);
  }
  return problems;
}

/** What housekeeping still has to finish: payment attempts unsettled, checkouts without their intent, refunds due. */
export async function unfinished(db: Db): Promise<{ paymentsStarted: number; withoutIntent: number; refundsDue: number }> {
  const count = async (query: ReturnType<typeof sql<{ n: string }>>) => Number((await query.execute(db)).rows[0]!.n);
  return {
    paymentsStarted: await count(sql<{ n: string }>`select count(*) as n from orders where payment_started_at is not null`),
    withoutIntent: await count(sql<{ n: string }>`select count(*) as n from orders where stripe_payment_intent_id is null and status = 'PENDING'`),
    refundsDue: await count(sql<{ n: string }>`select count(*) as n from refunds where confirmed_at is null`),
  };
}
