import { sql } from "kysely";
import type { SalesRepository } from "../../application/ports/sales.ts";
import type { Db } from "./database.ts";
import { importHistory } from "./history-import.ts";

type Sum = string | number;

/**
 * The report's sums: each statement sums over a range of one indexed time and groups by the
 * report's own periods (width_bucket over their bounds), so PostgreSQL neither knows nor needs the
 * shop's time zone. Three statements side by side on the pool: the orders paid, the refunds made,
 * and the lines of the orders paid (by the paid time they carry), read once for both the units of
 * each period and the best sellers.
 */
async function salesIn(db: Db, bounds: readonly Date[], top: number) {
  const edges = bounds.map((b) => b.toISOString());
  const [from, to] = [edges[0]!, edges.at(-1)!];
  const period = (column: string) => sql<number>`width_bucket(${sql.ref(column)}, ${edges}::timestamptz[]) - 1`;
  const [sold, refunded, lines] = await Promise.all([
    sql<{ period: number; orders: Sum; subtotal: Sum; discount: Sum; shipping: Sum; tax: Sum }>`
      select ${period("paid_at")} as period, count(*) as orders, sum(subtotal_cents) as subtotal, sum(discount_cents) as discount,
        sum(shipping_cents) as shipping, sum(tax_cents) as tax
      from orders where paid_at >= ${from} and paid_at < ${to} group by 1 order by 1`.execute(db),
    sql<{ period: number; subtotal: Sum; discount: Sum; shipping: Sum; tax: Sum }>`
      select ${period("refunded_at")} as period, sum(subtotal_cents) as subtotal, sum(discount_cents) as discount,
        sum(shipping_cents) as shipping, sum(tax_cents) as tax
      from orders where refunded_at >= ${from} and refunded_at < ${to} and paid_at is not null group by 1 order by 1`.execute(db),
    // Rows of a period (product null) give its units; rows of a product (period null), the best sellers.
    sql<{ period: number | null; product_id: string | null; name: string | null; sku: string | null; units: Sum; revenue: Sum | null }>`
      with lines as (
        select ${period("paid_at")} as period, product_id, sum(quantity) as units, sum(total_price_cents) as revenue
        from order_items where paid_at >= ${from} and paid_at < ${to}
        group by 1, 2
      ), best as (
        select product_id, sum(units) as units, sum(revenue) as revenue from lines
        group by product_id order by units desc, revenue desc, product_id limit ${top}
      )
      select period, null as product_id, null as name, null as sku, sum(units) as units, null as revenue from lines group by period
      union all
      select null, b.product_id, p.name, p.sku, b.units, b.revenue from best b join products p on p.id = b.product_id`.execute(db),
  ]);
  const unitsOf = new Map(lines.rows.flatMap((r) => (r.period === null ? [] : [[r.period, Number(r.units)] as const])));
  const best = lines.rows.flatMap((r) =>
    r.product_id === null ? [] : [{ productId: r.product_id, name: r.name!, sku: r.sku!, units: Number(r.units), revenue: Number(r.revenue) }],
  );
  return {
    sold: sold.rows.map((r) => ({
      period: r.period,
      orders: Number(r.orders),
      units: unitsOf.get(r.period) ?? 0,
      subtotal: Number(r.subtotal),
      discount: Number(r.discount),
      shipping: Number(r.shipping),
      tax: Number(r.tax),
    })),
    refunded: refunded.rows.map((r) => ({
      period: r.period,
      subtotal: Number(r.subtotal),
      discount: Number(r.discount),
      shipping: Number(r.shipping),
      tax: Number(r.tax),
    })),
    topProducts: best.sort((a, b) => b.units - a.units || b.revenue - a.revenue || (a.productId < b.productId ? -1 : 1)),
  };
}

/**
 * After a bulk load (db:seed --orders): the planner's statistics and the visibility map that
 * index-only scans need, brought up to date now rather than by autovacuum a minute or so later.
 */
export async function settleAfterImport(db: Db): Promise<void> {
  await sql`vacuum (analyze) users, orders, order_items, refunds`.execute(db);
}

export function createPgSalesRepository(db: Db): SalesRepository {
  return {
    salesIn: (bounds, top) => salesIn(db, bounds, top),
    importHistory: (batch) => importHistory(db, batch),
  };
}
