import { sql } from "kysely";
import type { Db } from "../../src/adapters/db/database.ts";

export interface OrderHistory {
  orders: number;
  /** Customers the orders are spread over (round robin). */
  customers: number;
  /** The newest order's time; the others reach back a year from it. */
  until?: Date;
}

/** This file, whose text is part of what a seeded template holds (tests/support/postgres.ts). */
export const SEED_SOURCE = import.meta.path;

const PRODUCTS = 40;
const DAY_MS = 86_400_000;

/**
 * Many orders fast, for tests and timings of the back office on a realistic volume: a few
 * multi-row INSERT … SELECT statements (generate_series), not one use case call per order. Every
 * order has 1 to 4 lines whose totals add up as a checkout's do; statuses and payment statuses come
 * in the proportions of a running shop (most delivered, some pending, cancelled or refunded),
 * creation times are scattered over the year before `until`, and an order paid was paid five
 * minutes after it was placed (its lines carry that time too).
 */
export async function seedOrderHistory(db: Db, history: OrderHistory): Promise<void> {
  const until = history.until ?? new Date("2026-11-20T12:00:00Z");
  const span = (365 * DAY_MS) / history.orders;
  await sql`insert into products (id, name, slug, description, price_cents, sku, featured_image, heat_level, inventory)
    select 'p' || lpad(p::text, 23, '0'), 'Seeded Sauce ' || p, 'seeded-sauce-' || p, 'A sauce', 500 + p * 37 % 1500, 'SEED-' || p,
      'https://img.example.com/' || p || '.jpg', p % 6, 1000
    from generate_series(0, ${PRODUCTS - 1}) as p`.execute(db);
  await sql`insert into users (id, email, name, role)
    select 'u' || lpad(c::text, 23, '0'), 'customer' || c || '@example.com', 'Customer ' || c || ' ' || (array['Smith', 'García', 'Nguyen', 'Okafor'])[c % 4 + 1], 'CUSTOMER'
    from generate_series(0, ${history.customers - 1}) as c`.execute(db);
  // Each order's lines are a pure function of its number n (product, quantity), so its totals can be summed before they are written.
  await sql`insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents, discount_cents,
      total_cents, units, shipping_method, shipping_address, billing_address, tracking_number, stripe_payment_intent_id, paid_via, paid_reference,
      payment_attempts, paid_at, created_at, updated_at)
    select 'o' || lpad(n::text, 23, '0'), 'SF-' || to_char(created at time zone 'UTC', 'YYYYMMDD') || '-' || suffix, 'u' || lpad((n % ${history.customers})::text, 23, '0'),
      status, payment, subtotal, shipping, tax, 0, subtotal + shipping + tax, units,
      (n % 500) || ' Main St' || E'\n' || 'Austin, TX 78701' || E'\n' || 'US',
      jsonb_build_object('address1', (n % 500) || ' Main St', 'address2', null, 'city', 'Austin', 'state', 'TX', 'postalCode', '78701', 'country', 'US'),
      jsonb_build_object('address1', (n % 500) || ' Main St', 'address2', null, 'city', 'Austin', 'state', 'TX', 'postalCode', '78701', 'country', 'US'),
      case when status in ('SHIPPED', 'DELIVERED') then '1Z' || n end,
      case when payment <> 'PENDING' or n % 2 = 0 then 'pi_' || n end,
      case when payment in ('PAID', 'REFUNDED') then 'stripe' end,
      case when payment in ('PAID', 'REFUNDED') then 'pi_' || n end,
      case when payment = 'PENDING' then 0 else 1 end,
      case when payment in ('PAID', 'REFUNDED') then created + interval '5 minutes' end,
      created, created
    from (
      select n, created, status, suffix,
        case when status = 'PENDING' then (case when n % 20 = 3 then 'FAILED' else 'PENDING' end)
             when status = 'CANCELLED' then (case when n % 3 = 0 then 'REFUNDED' else 'PENDING' end)
             when status = 'REFUNDED' then 'REFUNDED' else 'PAID' end as payment,
        subtotal, units, case when subtotal >= 5000 then 0 else 699 end as shipping, subtotal * 825 / 10000 as tax
      from (
        select n, (select string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (floor(n / 36.0 ^ k)::bigint % 36 + 1)::int, 1), '' order by k desc)
            from generate_series(0, 3) as k) as suffix,
          ${until}::timestamptz - make_interval(secs => ((n::bigint * 7919) % ${history.orders}) * ${span / 1000}::float8) as created,
          case when n % 100 < 5 then 'PENDING' when n % 100 < 13 then 'CONFIRMED' when n % 100 < 18 then 'PROCESSING'
               when n % 100 < 28 then 'SHIPPED' when n % 100 < 80 then 'DELIVERED' when n % 100 < 92 then 'CANCELLED' else 'REFUNDED' end as status,
          (select sum((500 + ((n * 7 + j * 13) % ${PRODUCTS}) * 37 % 1500) * (1 + (n + j) % 3)) from generate_series(0, n % 4) as j)::int as subtotal,
          (select sum(1 + (n + j) % 3) from generate_series(0, n % 4) as j)::int as units
        from generate_series(0, ${history.orders - 1}) as n
      ) as base
    ) as o`.execute(db);
  // Each line carries its order's paid time, as the shop writes it (the sales report's index of paid lines).
  await sql`insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents, position,
      paid_at)
    select 'i' || lpad((n * 4 + j)::text, 23, '0'), o.id, 'p' || lpad(p::text, 23, '0'), 'Seeded Sauce ' || p, 'SEED-' || p,
      'https://img.example.com/' || p || '.jpg', q, 500 + p * 37 % 1500, (500 + p * 37 % 1500) * q, j, o.paid_at
    from generate_series(0, ${history.orders - 1}) as n
      join orders o on o.id = 'o' || lpad(n::text, 23, '0'),
      generate_series(0, n % 4) as j,
      lateral (select (n * 7 + j * 13) % ${PRODUCTS} as p, 1 + (n + j) % 3 as q) as line`.execute(db);
  await sql`analyze orders, order_items, users, products`.execute(db);
}
