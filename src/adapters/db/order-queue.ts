import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Address } from "../../domain/address.ts";
import type { OrderStatus, PaymentStatus } from "../../domain/order.ts";
import { type PageRequest, offsetOf } from "../../domain/paging.ts";
import type { ExportedLine, OrderQueueFilter } from "../../application/ports/orders.ts";
import type { Db } from "./database.ts";
import { quietSince } from "../traffic.ts";
import { asDatabaseRefusal, containsPattern, readAhead } from "./sql-helpers.ts";
import type { Database } from "./tables.ts";

type Where = ExpressionBuilder<Database, "orders">;

/** The filter's conditions but `q`, each served by an index of migration 0013 (customerId by 0001's). */
function conditions(eb: Where, f: OrderQueueFilter): Expression<SqlBool>[] {
  const all: Expression<SqlBool>[] = [];
  // One status (the usual filter) as a plain parameter: the plan made once for every value then reads
  // that status's orders newest first from its index. As `any(array)`, it guessed most orders match,
  // walked every order newest first and filtered: 17,600 pages and 140 ms for the few PENDING ones
  // of 200,000 orders.
  if (f.statuses?.length) all.push(oneOrAny(eb, "orders.status", f.statuses));
  if (f.paymentStatuses?.length) all.push(oneOrAny(eb, "orders.payment_status", f.paymentStatuses));
  if (f.from) all.push(eb("orders.created_at", ">=", f.from));
  if (f.to) all.push(eb("orders.created_at", "<", f.to));
  if (f.customerId) all.push(eb("orders.user_id", "=", f.customerId));
  return all;
}

const oneOrAny = (eb: Where, column: "orders.status" | "orders.payment_status", values: readonly string[]) =>
  values.length === 1 ? eb(column, "=", values[0]!) : eb(column, "=", sql<string>`any(${values}::text[])`);

/** The customer's e-mail or name holds the pattern (trigram indexes of 0015). */
const customerMatches = (u: ExpressionBuilder<Database, "users">, pattern: string) =>
  u.or([u("users.email", "ilike", pattern), u("users.name", "ilike", pattern)]);

const customersMatching = (eb: Where, pattern: string) =>
  eb
    .selectFrom("users")
    .select("users.id")
    .where((u) => customerMatches(u, pattern));

/**
 * One page of the queue's orders with their customers, newest first. With `q`, the newest of the
 * orders whose number matches and the newest of those whose customer does are taken separately
 * (each branch by whichever index suits how many it matches) and merged: a single OR would have to
 * gather every match before it could sort, tens of thousands for a common name.
 */
export async function queuePage(db: Db, f: OrderQueueFilter, page: PageRequest) {
  const offset = offsetOf(page);
  const query = db
    .selectFrom("orders")
    .innerJoin("users", "users.id", "orders.user_id")
    .selectAll("orders")
    .select(["users.email as customer_email", "users.name as customer_name"]);
  const matching =
    f.q === undefined ? query.where((eb) => eb.and(conditions(eb, f))) : query.where("orders.id", "in", await newestMatchingQ(db, f, f.q, offset + page.limit));
  return matching.orderBy("orders.created_at", "desc").orderBy("orders.id", "desc").limit(page.limit).offset(offset).execute();
}

/**
 * The customers `q` matches, up to this many, are looked up first and their orders taken by the
 * customer index: a few orders each, sorted in a few milliseconds. When more match, the newest
 * orders are walked instead, each one's customer checked, and with that many matching the first
 * page is found early. Left to the planner, whose estimate of a trigram match is rough, 220
 * customers of 47,000 were walked for: 6,400 orders read, 54 ms, where the look-up and the page take
 * some 15 (bench:admin's 200,000 orders).
 */
const CUSTOMERS_LOOKED_UP = 500;

/**
 * The ids of the customers the pattern matches, when there are at most CUSTOMERS_LOOKED_UP of them;
 * null when more match, or with customerId (the orders are one customer's already: nothing to look up).
 */
async function customersLookedUp(db: Db, f: OrderQueueFilter, pattern: string): Promise<string[] | null> {
  if (f.customerId !== undefined) return null;
  const customers = await db
    .selectFrom("users")
    .select("users.id")
    .where((u) => customerMatches(u, pattern))
    .limit(CUSTOMERS_LOOKED_UP + 1)
    .execute();
  return customers.length <= CUSTOMERS_LOOKED_UP ? customers.map((customer) => customer.id) : null;
}

async function newestMatchingQ(db: Db, f: OrderQueueFilter, q: string, count: number) {
  const pattern = containsPattern(q);
  const ids = await customersLookedUp(db, f, pattern);
  const ofCustomer = ids
    ? (eb: Where) => eb("orders.user_id", "=", sql<string>`any(${ids}::text[])`)
    : (eb: Where) => eb("orders.user_id", "in", customersMatching(eb, pattern));
  const newest = (match: (eb: Where) => Expression<SqlBool>) =>
    db
      .selectFrom("orders")
      .select(["orders.id", "orders.created_at"])
      .where((eb) => eb.and([...conditions(eb, f), match(eb)]))
      .orderBy("orders.created_at", "desc")
      .orderBy("orders.id", "desc")
      .limit(count);
  const byNumber = newest((eb) => eb("orders.order_number", "ilike", pattern));
  const byCustomer = newest(ofCustomer);
  return db.selectFrom(sql<{ id: string; created_at: Date }>`((${byNumber}) union (${byCustomer}))`.as("matched")).select("matched.id");
}

/**
 * How many orders match. With `q`, as two counts that cannot overlap: the orders of the customers it
 * matches, read from the customer index alone, and the orders whose number matches though their
 * customer does not. One count of either match had to visit every matching order's row to tell
 * (13,516 orders of 3,183 customers: 30 ms warm, against 15 for the two).
 */
export async function queueCount(db: Db, f: OrderQueueFilter): Promise<number> {
  const count = (match?: (eb: Where) => Expression<SqlBool>) =>
    db
      .selectFrom("orders")
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .where((eb) => eb.and([...conditions(eb, f), ...(match ? [match(eb)] : [])]));
  if (f.q === undefined) return Number((await count().executeTakeFirstOrThrow()).total);
  const pattern = containsPattern(f.q);
  const ofCustomers = count((eb) => eb("orders.user_id", "=", sql<string>`any(array(${customersMatching(eb, pattern)}))`));
  const byNumberAlone = count((eb) =>
    eb.and([
      eb("orders.order_number", "ilike", pattern),
      eb.not(
        eb.exists(
          eb
            .selectFrom("users")
            .select("users.id")
            .whereRef("users.id", "=", "orders.user_id")
            .where((u) => customerMatches(u, pattern)),
        ),
      ),
    ]),
  );
  const row = await db.selectNoFrom(sql<string>`(${ofCustomers}) + (${byNumberAlone})`.as("total")).executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Where the last batch ended: the creation time as PostgreSQL wrote it (microseconds, which a Date would cut), the order, the line. */
interface Cursor {
  at: string;
  orderId: string;
  position: number;
  itemId: string;
}

/** An exported line as PostgreSQL writes it: one JSON array, in this order. */
type LineTuple = [
  orderId: string,
  orderNumber: string,
  status: OrderStatus,
  paymentStatus: PaymentStatus,
  subtotal: number,
  shippingCost: number,
  tax: number,
  discountAmount: number,
  total: number,
  shippingAddress: Address,
  trackingNumber: string | null,
  createdAt: string,
  updatedAt: string,
  customerId: string,
  email: string,
  name: string,
  itemId: string,
  productId: string,
  productName: string,
  productSku: string,
  productImage: string,
  quantity: number,
  unitPrice: number,
  totalPrice: number,
  position: number,
];

/**
 * A batch of lines after the cursor, each as one JSON array. An export reads hundreds of thousands
 * of lines: as 25 columns each, turning every field into a string of its own took most of the
 * server's time; one JSON text a line is decoded whole, natively, at a third of the cost.
 */
async function linesAfter(db: Db, f: OrderQueueFilter, q: QMatch | null, after: Cursor | null, limit: number): Promise<LineTuple[]> {
  const rows = await db
    .selectFrom("orders")
    .innerJoin("users", "users.id", "orders.user_id")
    .innerJoin("order_items as item", "item.order_id", "orders.id")
    .select(
      sql<LineTuple>`json_build_array(
        orders.id, orders.order_number, orders.status, orders.payment_status, orders.subtotal_cents,
        orders.shipping_cents, orders.tax_cents, orders.discount_cents, orders.total_cents,
        orders.shipping_address, orders.tracking_number, orders.created_at, orders.updated_at,
        orders.user_id, users.email, users.name,
        item.id, item.product_id, item.product_name, item.product_sku, item.product_image,
        item.quantity, item.unit_price_cents, item.total_price_cents, item.position
      )`.as("line"),
    )
    .where((eb) => {
      const all = [...conditions(eb, f), ...(q ? [q(eb)] : [])];
      if (after) {
        // The same order's later lines, or any line of the orders after it (older, or as old with a smaller id).
        const order = sql`(orders.created_at, orders.id)`;
        const cursor = sql`(${after.at}::timestamptz, ${after.orderId})`;
        all.push(sql<SqlBool>`${order} <= ${cursor} and (${order} < ${cursor} or (item.position, item.id) > (${after.position}, ${after.itemId}))`);
      }
      return eb.and(all);
    })
    .orderBy("orders.created_at", "desc")
    .orderBy("orders.id", "desc")
    .orderBy("item.position")
    .orderBy("item.id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.line);
}

const toLine = (l: LineTuple): ExportedLine => ({
  order: {
    id: l[0],
    orderNumber: l[1],
    status: l[2],
    paymentStatus: l[3],
    subtotal: l[4],
    shippingCost: l[5],
    tax: l[6],
    discountAmount: l[7],
    total: l[8],
    shippingAddress: l[9],
    trackingNumber: l[10],
    createdAt: new Date(l[11]),
    updatedAt: new Date(l[12]),
  },
  customer: { id: l[13], email: l[14], name: l[15] },
  item: {
    id: l[16],
    productId: l[17],
    productName: l[18],
    productSku: l[19],
    productImage: l[20],
    quantity: l[21],
    unitPrice: l[22],
    totalPrice: l[23],
  },
});

/** `q` as an export's batches test it, on each order and its customer (joined as `users`). */
type QMatch = (eb: Where) => Expression<SqlBool>;

/**
 * `q` for an export, judged once for all its batches: the customers it matches are looked up first,
 * and when they are few each batch takes their orders by id; when more match (a common part of an
 * e-mail), each order's own customer, joined for the export anyway, is tested. Each batch ran the
 * look-up of every matching customer again, a scan of the users: `q=a` over 100,000 orders and
 * 23,000 customers took 11.7 s against 4 without `q` (found by an attack).
 */
async function exportMatchOf(db: Db, f: OrderQueueFilter): Promise<QMatch | null> {
  if (f.q === undefined) return null;
  const pattern = containsPattern(f.q);
  const byNumber = (eb: Where) => eb("orders.order_number", "ilike", pattern);
  const ids = await customersLookedUp(db, f, pattern);
  if (ids) return (eb) => eb.or([byNumber(eb), eb("orders.user_id", "=", sql<string>`any(${ids}::text[])`)]);
  return (eb) => eb.or([byNumber(eb), sql<SqlBool>`users.email ilike ${pattern}`, sql<SqlBool>`users.name ilike ${pattern}`]);
}

/**
 * Each batch is one statement on a connection of the pool's, given back before the batch is handed
 * on; while the process is quiet, the next is read meanwhile (readAhead).
 */
export async function* exportLines(db: Db, f: OrderQueueFilter, batchSize: number): AsyncGenerator<ExportedLine[]> {
  // JSON keeps the creation time to the microsecond, in the session's time zone.
  const cursorAt = (last: LineTuple): Cursor => ({ at: last[11], orderId: last[0], position: last[24], itemId: last[16] });
  const q = await exportMatchOf(db, f);
  const batches = readAhead((last: LineTuple | null) => linesAfter(db, f, q, last && cursorAt(last), batchSize), batchSize, quietSince());
  // Read after the unit of work handed the generator over: its refusals are made here.
  try {
    for await (const lines of batches) yield lines.map(toLine);
  } catch (error) {
    throw asDatabaseRefusal(error);
  }
}
