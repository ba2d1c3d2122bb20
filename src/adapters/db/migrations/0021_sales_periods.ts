import { type Kysely, sql } from "kysely";

// Frozen. The sales report's figures of a period that has settled (it ended over an hour ago:
// domain/report.ts) never change, so they are kept the first time a report sums them, and read back
// after: a year of days was summed from 188,000 paid orders and 413,000 order lines on every report
// (100 to 400 ms of the database's time), and is now read from 365 rows and their best sellers.
// A period is its range of instants, [period_start, period_end): the same whatever the report's
// zone or interval. A history written with past times (db:seed --orders) forgets them all, and
// moves the generation on: a report that summed periods before such a history landed keeps them
// only while the generation it read first is still the current one (sales-repository.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table sales_periods (
    period_start timestamptz not null,
    period_end timestamptz not null,
    orders integer not null,
    units bigint not null,
    subtotal_cents bigint not null,
    discount_cents bigint not null,
    shipping_cents bigint not null,
    tax_cents bigint not null,
    refunded_orders integer not null,
    refunded_subtotal_cents bigint not null,
    refunded_discount_cents bigint not null,
    refunded_shipping_cents bigint not null,
    refunded_tax_cents bigint not null,
    primary key (period_start, period_end),
    check (period_start < period_end)
  )`.execute(db);
  await sql`create table sales_period_products (
    period_start timestamptz not null,
    period_end timestamptz not null,
    product_id text not null,
    units bigint not null,
    revenue_cents bigint not null,
    primary key (period_start, period_end, product_id),
    foreign key (period_start, period_end) references sales_periods on delete cascade
  )`.execute(db);
  await sql`create table sales_periods_generation (generation bigint not null)`.execute(db);
  await sql`insert into sales_periods_generation values (1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sales_periods_generation").execute();
  await db.schema.dropTable("sales_period_products").execute();
  await db.schema.dropTable("sales_periods").execute();
}
