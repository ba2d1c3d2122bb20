import { type RawBuilder, sql } from "kysely";
import type { SalesRepository } from "../../application/ports/sales.ts";
import type { PeriodRefunds, PeriodSales, ProductSales } from "../../domain/report.ts";
import type { Db } from "./database.ts";
import { importHistory } from "./history-import.ts";
import { timestamptzText } from "./sql-helpers.ts";

type Sum = string | number;

/** One period of the report: its index, and its instants [start, end) as PostgreSQL reads them. */
interface Span {
  period: number;
  start: string;
  end: string;
}

/** A period's sums: of the orders paid in it, and of the refunds made in it (with their count: a period may have none). */
interface SpanSums {
  sold: PeriodSales;
  refunded: PeriodRefunds & { orders: number };
}

/** What one product sold in one period. */
interface SpanProduct {
  period: number;
  productId: string;
  units: number;
  revenue: number;
}

/** The spans as two arrays, for unnest: a statement's size does not grow with their number. */
const edgesOf = (spans: readonly Span[]) => ({ starts: spans.map((s) => s.start), ends: spans.map((s) => s.end) });

/** The spans as a table `w(period_start, period_end, n)`, n counting from 1 in their order. */
function spansTable(spans: readonly Span[]) {
  const { starts, ends } = edgesOf(spans);
  return sql`unnest(${starts}::timestamptz[], ${ends}::timestamptz[]) with ordinality as w(period_start, period_end, n)`;
}

/**
 * The orders whose `time` falls in each span, summed by `sums`, each span read from its own range of
 * the index, one after the other. Grouped instead by a period computed for every row, the year's
 * 188,000 paid orders were sorted (the plan PostgreSQL keeps for a prepared statement, knowing no
 * range, sorts them to group), and the sort spilled to disk: 73 to 130 ms, against 20 for the
 * ranges. Every span has its row, an empty one with a count of 0; `i` is its place in `spans`.
 */
function bySpan<Row>(db: Db, spans: readonly Span[], sums: RawBuilder<unknown>, time: "paid_at" | "refunded_at", also: RawBuilder<unknown> = sql`true`) {
  return sql<Row & { i: number }>`
    select w.n - 1 as i, s.*
    from ${spansTable(spans)}
    cross join lateral (select ${sums} from orders where ${sql.ref(time)} >= w.period_start and ${sql.ref(time)} < w.period_end and ${also}) as s
    order by w.n`.execute(db);
}

const MONEY = sql`coalesce(sum(subtotal_cents), 0) as subtotal, coalesce(sum(discount_cents), 0) as discount,
  coalesce(sum(shipping_cents), 0) as shipping, coalesce(sum(tax_cents), 0) as tax`;

/** Each span's sums, summed from its orders now. */
async function sumSpans(db: Db, spans: readonly Span[]): Promise<SpanSums[]> {
  const [sold, refunded] = await Promise.all([
    bySpan<{ orders: Sum; units: Sum | null; unitless: Sum; subtotal: Sum; discount: Sum; shipping: Sum; tax: Sum }>(
      db,
      spans,
      sql`count(*) as orders, sum(units) as units, count(*) filter (where units is null) as unitless, ${MONEY}`,
      "paid_at",
    ),
    bySpan<{ orders: Sum; subtotal: Sum; discount: Sum; shipping: Sum; tax: Sum }>(
      db,
      spans,
      sql`count(*) as orders, ${MONEY}`,
      "refunded_at",
      sql`paid_at is not null`,
    ),
  ]);
  const unitsFromLines = sold.rows.some((r) => Number(r.unitless) > 0) ? await unitsOfUnitless(db, spans) : new Map<number, number>();
  return spans.map(({ period }, i) => {
    const s = sold.rows[i]!;
    const r = refunded.rows[i]!;
    return {
      sold: {
        period,
        orders: Number(s.orders),
        units: Number(s.units ?? 0) + (unitsFromLines.get(i) ?? 0),
        subtotal: Number(s.subtotal),
        discount: Number(s.discount),
        shipping: Number(s.shipping),
        tax: Number(s.tax),
      },
      refunded: {
        period,
        subtotal: Number(r.subtotal),
        discount: Number(r.discount),
        shipping: Number(r.shipping),
        tax: Number(r.tax),
        orders: Number(r.orders),
      },
    };
  });
}

/**
 * The units of the paid orders that do not carry them, from their lines, by span: orders written
 * by an instance still on the code from before migration 0020, during a rolling restart. None
 * otherwise, and this is not asked.
 */
async function unitsOfUnitless(db: Db, spans: readonly Span[]): Promise<Map<number, number>> {
  const { rows } = await sql<{ i: number; units: Sum }>`
    select w.n - 1 as i, sum(i.quantity) as units
    from ${spansTable(spans)}
    join orders o on o.paid_at >= w.period_start and o.paid_at < w.period_end and o.units is null
    join order_items i on i.order_id = o.id
    group by w.n`.execute(db);
  return new Map(rows.map((r) => [Number(r.i), Number(r.units)]));
}

/** What each product sold in each span, from the lines paid in it. */
async function productsOfSpans(db: Db, spans: readonly Span[]): Promise<SpanProduct[]> {
  const { rows } = await sql<{ i: number; product_id: string; units: Sum; revenue: Sum }>`
    select w.n - 1 as i, l.product_id, sum(l.quantity) as units, sum(l.total_price_cents) as revenue
    from ${spansTable(spans)}
    cross join lateral (select product_id, quantity, total_price_cents from order_items where paid_at >= w.period_start and paid_at < w.period_end) as l
    group by w.n, l.product_id`.execute(db);
  return rows.map((r) => ({ period: spans[Number(r.i)]!.period, productId: r.product_id, units: Number(r.units), revenue: Number(r.revenue) }));
}

/**
 * The settled spans' sums kept earlier (by keep), each found by its instants, and the generation of
 * what is kept (moved on by every history written with past times), read before anything is summed.
 * Without its row (the migration writes it; only a hand could delete it), nothing is ever kept.
 */
async function keptSums(db: Db, spans: readonly Span[]): Promise<{ generation: string | null; kept: Map<number, SpanSums> }> {
  const { rows } = await sql<{
    generation: string | null;
    i: number | null;
    orders: number;
    units: Sum;
    subtotal_cents: Sum;
    discount_cents: Sum;
    shipping_cents: Sum;
    tax_cents: Sum;
    refunded_orders: number;
    refunded_subtotal_cents: Sum;
    refunded_discount_cents: Sum;
    refunded_shipping_cents: Sum;
    refunded_tax_cents: Sum;
  }>`
    select g.generation, k.*
    from (select (select generation from sales_periods_generation) as generation) as g
    left join (
      select w.n - 1 as i, k.*
      from ${spansTable(spans)}
      join sales_periods k using (period_start, period_end)
    ) k on true`.execute(db);
  const kept = new Map(
    rows
      .filter((k) => k.i !== null)
      .map((k) => {
        const period = spans[Number(k.i)]!.period;
        return [
          period,
          {
            sold: {
              period,
              orders: k.orders,
              units: Number(k.units),
              subtotal: Number(k.subtotal_cents),
              discount: Number(k.discount_cents),
              shipping: Number(k.shipping_cents),
              tax: Number(k.tax_cents),
            },
            refunded: {
              period,
              orders: k.refunded_orders,
              subtotal: Number(k.refunded_subtotal_cents),
              discount: Number(k.refunded_discount_cents),
              shipping: Number(k.refunded_shipping_cents),
              tax: Number(k.refunded_tax_cents),
            },
          },
        ];
      }),
  );
  return { generation: rows[0]!.generation, kept };
}

/**
 * Keeps settled spans' sums and their products' in one statement: all of a span or none of it. A
 * span another report kept meanwhile is left as it is (the same sums), and so are its products.
 * Nothing is kept unless `generation`, read before the sums, is still the current one: a history
 * written since may have landed after the sums were read. The row is locked for share, so a history
 * being written waits for this statement, forgets what it kept, and a statement after it keeps nothing.
 * `products`: what each product sold in these spans (productsOfSpans of them).
 */
async function keep(db: Db, generation: string, spans: readonly Span[], sums: ReadonlyMap<number, SpanSums>, products: readonly SpanProduct[]): Promise<void> {
  const { starts, ends } = edgesOf(spans);
  const column = <T>(of: (s: SpanSums) => T) => spans.map((span) => of(sums.get(span.period)!));
  const spanOf = new Map(spans.map((s) => [s.period, s]));
  await sql`
    with current as (
      select from sales_periods_generation where generation = ${generation} for share
    ), kept as (
      insert into sales_periods (period_start, period_end, orders, units, subtotal_cents, discount_cents, shipping_cents, tax_cents,
        refunded_orders, refunded_subtotal_cents, refunded_discount_cents, refunded_shipping_cents, refunded_tax_cents)
      select * from unnest(${starts}::timestamptz[], ${ends}::timestamptz[], ${column((s) => s.sold.orders)}::int[], ${column((s) => s.sold.units)}::bigint[],
        ${column((s) => s.sold.subtotal)}::bigint[], ${column((s) => s.sold.discount)}::bigint[], ${column((s) => s.sold.shipping)}::bigint[],
        ${column((s) => s.sold.tax)}::bigint[], ${column((s) => s.refunded.orders)}::int[], ${column((s) => s.refunded.subtotal)}::bigint[],
        ${column((s) => s.refunded.discount)}::bigint[], ${column((s) => s.refunded.shipping)}::bigint[], ${column((s) => s.refunded.tax)}::bigint[])
      where exists (select from current)
      on conflict do nothing
      returning period_start, period_end
    )
    insert into sales_period_products (period_start, period_end, product_id, units, revenue_cents)
    select p.* from unnest(${products.map((p) => spanOf.get(p.period)!.start)}::timestamptz[], ${products.map((p) => spanOf.get(p.period)!.end)}::timestamptz[],
      ${products.map((p) => p.productId)}::text[], ${products.map((p) => p.units)}::bigint[], ${products.map((p) => p.revenue)}::bigint[])
      as p(period_start, period_end, product_id, units, revenue_cents)
    join kept using (period_start, period_end)`.execute(db);
}

/**
 * The `top` products sold most over the settled spans and the range [from, to) after them, named as
 * the product is now. A settled span is read from what was kept of it where it was kept, and from
 * its lines where it was not (a history landed meanwhile, and this report kept nothing): in one
 * statement, so each span is counted once, whatever is kept or forgotten at the same moment.
 */
async function topProducts(db: Db, settled: readonly Span[], from: string, to: string, top: number): Promise<ProductSales[]> {
  const { rows } = await sql<{ product_id: string; name: string; sku: string; units: Sum; revenue: Sum }>`
    with w as (
      select w.period_start, w.period_end, k.period_start is not null as kept
      from ${spansTable(settled)}
      left join sales_periods k using (period_start, period_end)
    )
    select b.product_id, p.name, p.sku, b.units, b.revenue
    from (
      select product_id, sum(units) as units, sum(revenue) as revenue
      from (
        select k.product_id, k.units, k.revenue_cents as revenue
        from w join sales_period_products k using (period_start, period_end) where w.kept
        union all
        select l.product_id, l.quantity, l.total_price_cents
        from w cross join lateral (select product_id, quantity, total_price_cents from order_items where paid_at >= w.period_start and paid_at < w.period_end) as l
        where not w.kept
        union all
        select product_id, quantity, total_price_cents from order_items where paid_at >= ${from} and paid_at < ${to}
      ) as l
      group by product_id order by units desc, revenue desc, product_id limit ${top}
    ) b join products p on p.id = b.product_id`.execute(db);
  return rows
    .map((r) => ({ productId: r.product_id, name: r.name, sku: r.sku, units: Number(r.units), revenue: Number(r.revenue) }))
    .sort((a, b) => b.units - a.units || b.revenue - a.revenue || (a.productId < b.productId ? -1 : 1));
}

/** The settled spans' sums: those kept before, and the others summed now and kept. */
async function settledSumsOf(db: Db, spans: readonly Span[]): Promise<SpanSums[]> {
  if (spans.length === 0) return [];
  const { generation, kept } = await keptSums(db, spans);
  const missing = spans.filter((s) => !kept.has(s.period));
  if (missing.length > 0) {
    // A day a zone skipped whole (Samoa's 2011-12-30) is a period of no instant: nothing to keep.
    const keepable = generation === null ? [] : missing.filter((s) => s.start !== s.end);
    const [sums, products] = await Promise.all([sumSpans(db, missing), keepable.length > 0 ? productsOfSpans(db, keepable) : []]);
    const fresh = new Map(sums.map((s) => [s.sold.period, s]));
    if (generation !== null && keepable.length > 0) await keep(db, generation, keepable, fresh, products);
    for (const [period, s] of fresh) kept.set(period, s);
  }
  return spans.map((s) => kept.get(s.period)!);
}

/**
 * The report's sums. A period that has settled (it ended before `settled`) is read from what an
 * earlier report kept of it, or summed and kept now; the others are summed from their orders each
 * time. A year of days, settled: 365 rows and their best sellers, and the orders of today alone,
 * where summing the year read its 188,000 paid orders and 413,000 lines (100 to 400 ms of the
 * database's time). Keeping is a write made by a read, but of figures that can no longer change:
 * what it keeps is the same whoever keeps it first.
 */
async function salesIn(db: Db, bounds: readonly Date[], top: number, settled?: Date) {
  const edges = bounds.map(timestamptzText);
  const spans: Span[] = edges.slice(0, -1).map((start, period) => ({ period, start, end: edges[period + 1]! }));
  const settledCount = settled === undefined ? 0 : bounds.slice(1).filter((end) => end.getTime() <= settled.getTime()).length;
  const [closed, open] = [spans.slice(0, settledCount), spans.slice(settledCount)];

  const [liveSums, [settledSums, best]] = await Promise.all([
    open.length > 0 ? sumSpans(db, open) : [],
    settledSumsOf(db, closed).then(async (sums) => [sums, await topProducts(db, closed, open[0]?.start ?? edges.at(-1)!, edges.at(-1)!, top)] as const),
  ]);
  const all = [...settledSums, ...liveSums];
  return {
    sold: all.filter((s) => s.sold.orders > 0).map((s) => s.sold),
    refunded: all.filter((s) => s.refunded.orders > 0).map(({ refunded: { orders: _, ...r } }) => r),
    topProducts: best,
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
    salesIn: (bounds, top, settled) => salesIn(db, bounds, top, settled),
    importHistory: (batch) => importHistory(db, batch),
  };
}
