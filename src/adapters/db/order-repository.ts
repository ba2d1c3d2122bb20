import { type Selectable, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Address } from "../../domain/address.ts";
import type { AuditEntry } from "../../domain/audit.ts";
import { type Order, type OrderItem, type OrderStatus, type OrderView, type PaymentStatus, unitsOf } from "../../domain/order.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { OrderChanges, OrderRepository } from "../../application/ports/orders.ts";
import { auditArgs, auditValuesAt, insertAuditAfter } from "./audit-log.ts";
import { compileOnce, compilePerShape } from "./compile-once.ts";
import type { Db } from "./database.ts";
import { exportLines, queueCount, queuePage } from "./order-queue.ts";
import { asDatabaseRefusal, totalOf } from "./sql-helpers.ts";
import type { OrderItemsTable, OrdersTable } from "./tables.ts";

type OrderRow = Selectable<OrdersTable>;

function toOrder(row: OrderRow, items: OrderItem[]): Order {
  return {
    id: row.id,
    orderNumber: row.order_number,
    userId: row.user_id,
    status: row.status as OrderStatus,
    paymentStatus: row.payment_status as PaymentStatus,
    subtotal: row.subtotal_cents,
    shippingCost: row.shipping_cents,
    tax: row.tax_cents,
    discountAmount: row.discount_cents,
    total: row.total_cents,
    shippingMethod: row.shipping_method,
    shippingAddress: row.shipping_address as Address,
    billingAddress: row.billing_address as Address,
    trackingNumber: row.tracking_number,
    customerNotes: row.customer_notes,
    stripePaymentIntentId: row.stripe_payment_intent_id,
    paymentAttempts: row.payment_attempts,
    paymentStartedAt: row.payment_started_at,
    paidVia: row.paid_via,
    paidReference: row.paid_reference,
    paidAt: row.paid_at,
    refundedAt: row.refunded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    items,
  };
}

type ItemRow = Pick<
  Selectable<OrderItemsTable>,
  "id" | "product_id" | "product_name" | "product_sku" | "product_image" | "quantity" | "unit_price_cents" | "total_price_cents"
>;

const toItem = (i: ItemRow): OrderItem => ({
  id: i.id,
  productId: i.product_id,
  productName: i.product_name,
  productSku: i.product_sku,
  productImage: i.product_image,
  quantity: i.quantity,
  unitPrice: i.unit_price_cents,
  totalPrice: i.total_price_cents,
});

/**
 * The order, its items and its audit entry land in one statement: the items and the entry are
 * inserted from what the order's insert returns, so an order number already taken (ON CONFLICT DO
 * NOTHING) writes none of them. Compiled once with its entry and once without (compile-once.ts).
 */
const insertOrderStatement = compilePerShape(
  (audited: boolean) => String(audited),
  (_db, audited, ...a: unknown[]) => {
    const [id, orderNumber, userId, status, paymentStatus, subtotal, shipping, tax, discount, total, units, shippingMethod] = a;
    const [shippingAddress, billingAddress, notes, intentId, createdAt, itemIds, productIds, names, skus, images, quantities, unitPrices, totalPrices] =
      a.slice(12);
    return sql<{ id: string }>`
    with created as (
      insert into orders (id, order_number, user_id, status, payment_status, subtotal_cents, shipping_cents, tax_cents,
        discount_cents, total_cents, units, shipping_method, shipping_address, billing_address, customer_notes,
        stripe_payment_intent_id, created_at, updated_at)
      values (${id}, ${orderNumber}, ${userId}, ${status}, ${paymentStatus}, ${subtotal}, ${shipping}, ${tax},
        ${discount}, ${total}, ${units}, ${shippingMethod}, ${shippingAddress}, ${billingAddress},
        ${notes}, ${intentId}, ${createdAt}, ${createdAt})
      on conflict (order_number) do nothing
      returning id
    ), items as (
      insert into order_items (id, order_id, product_id, product_name, product_sku, product_image, quantity, unit_price_cents, total_price_cents, position)
      select i.id, created.id, i.product_id, i.name, i.sku, i.image, i.quantity, i.unit_price, i.total_price, i.position - 1
      from created, unnest(${itemIds}::text[], ${productIds}::text[], ${names}::text[],
        ${skus}::text[], ${images}::text[], ${quantities}::int[],
        ${unitPrices}::int[], ${totalPrices}::int[]) with ordinality
        as i(id, product_id, name, sku, image, quantity, unit_price, total_price, position)
    )${audited ? sql`, audit as (${insertAuditAfter("created", auditValuesAt(a, ORDER_ARGS))})` : sql``}
    select id from created`;
  },
);

/** The order's values as insertOrderStatement takes them, ORDER_ARGS of them. */
function orderArgs(o: Order): unknown[] {
  const column = <T>(pick: (item: OrderItem) => T) => o.items.map(pick);
  return [
    ...[o.id, o.orderNumber, o.userId, o.status, o.paymentStatus, o.subtotal, o.shippingCost, o.tax, o.discountAmount, o.total, unitsOf(o), o.shippingMethod],
    ...[JSON.stringify(o.shippingAddress), JSON.stringify(o.billingAddress), o.customerNotes, o.stripePaymentIntentId, o.createdAt],
    ...[column((i) => i.id), column((i) => i.productId), column((i) => i.productName), column((i) => i.productSku), column((i) => i.productImage)],
    ...[column((i) => i.quantity), column((i) => i.unitPrice), column((i) => i.totalPrice)],
  ];
}
const ORDER_ARGS = 25;

const insertOrder = (db: Db, o: Order, audit: AuditEntry | undefined) =>
  insertOrderStatement(db, audit !== undefined, ...orderArgs(o), ...(audit ? auditArgs(audit) : []));

const itemsOf = compileOnce((db, orderIds: string[]) =>
  db
    .selectFrom("order_items")
    .innerJoin("products", "products.id", "order_items.product_id")
    .select([
      "order_items.id",
      "order_items.order_id",
      "order_items.product_id",
      "order_items.product_name",
      "order_items.product_sku",
      "order_items.product_image",
      "order_items.quantity",
      "order_items.unit_price_cents",
      "order_items.total_price_cents",
      "products.name",
      "products.slug",
      "products.featured_image",
      "products.heat_level",
    ])
    .where("order_items.order_id", "=", sql<string>`any(${orderIds}::text[])`)
    .orderBy("order_items.order_id")
    .orderBy("order_items.position"),
);

// On the checkout's path: one statement, whose row lock and re-checked condition keep an order cancelled
// meanwhile, or one that somehow has another intent already, from getting this one.
const attachIntent = compileOnce((db, id: string, intentId: string, at: Date) =>
  db
    .updateTable("orders")
    .set({ stripe_payment_intent_id: intentId, updated_at: at })
    .where("id", "=", id)
    .where("status", "=", "PENDING")
    .where((eb) => eb.or([eb("stripe_payment_intent_id", "is", null), eb("stripe_payment_intent_id", "=", intentId)]))
    .returning("id"),
);
const byId = compileOnce((db, id: string) => db.selectFrom("orders").selectAll().where("id", "=", id));
// An order with its items in one statement (a lock, when taken, covers the orders row only).
const rowWithItems = (db: Db, id: string) =>
  db
    .selectFrom("orders")
    .selectAll("orders")
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom("order_items")
          .select(["id", "product_id", "product_name", "product_sku", "product_image", "quantity", "unit_price_cents", "total_price_cents"])
          .whereRef("order_items.order_id", "=", "orders.id")
          .orderBy("order_items.position"),
      ).as("items"),
    )
    .where("orders.id", "=", id);
// Every checkout counts its customer's unpaid orders, from the partial index of PENDING orders by customer.
// The statuses here and below are literals: a prepared statement's generic plan cannot match a partial
// index's predicate to a parameter, and took whatever else looked cheap (under the checkout bench, 770
// pages and 0.64 ms a checkout, against 2 or 3 pages and 0.02 ms).
const PENDING = sql.lit("PENDING");
const UNPAID = [PENDING, sql.lit("FAILED")];
const unpaidOf = compileOnce((db, userId: string, limit: number) =>
  db
    .selectFrom("orders")
    .select(["id", "order_number"])
    .where("user_id", "=", userId)
    .where("status", "=", PENDING)
    .where("payment_status", "in", UNPAID)
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit),
);
const byIdLocked = compileOnce((db, id: string) => rowWithItems(db, id).forUpdate());
// The row's xmin (the transaction that wrote its current version) is its version: every write of the
// order changes it, by whatever path, so no writer can forget to (Npgsql's optimistic concurrency uses it so).
const byIdVersioned = compileOnce((db, id: string) => rowWithItems(db, id).select(sql<string>`orders.xmin::text`.as("version")));
const byIdLockedOrSkipped = compileOnce((db, id: string) => rowWithItems(db, id).forUpdate().skipLocked());

/** The columns a change sets; a field left undefined is left as it is. */
const ORDER_COLUMNS = {
  status: "status",
  paymentStatus: "payment_status",
  trackingNumber: "tracking_number",
  stripePaymentIntentId: "stripe_payment_intent_id",
  paymentAttempts: "payment_attempts",
  paymentStartedAt: "payment_started_at",
  paidVia: "paid_via",
  paidReference: "paid_reference",
  paidAt: "paid_at",
  refundedAt: "refunded_at",
  updatedAt: "updated_at",
} as const satisfies Record<keyof OrderChanges, keyof OrdersTable>;

/**
 * An order's change, written only if the order is still at `version` (its xmin), in one statement,
 * so no transaction: the row's lock is taken and its version checked by the update itself, which,
 * having waited for another writer, checks the version that writer left. The items carry a copy of
 * the paid time, written with it (migration 0014: the sales report reads lines by it); an audit
 * entry rides along. Compiled once per set of columns (compile-once.ts).
 */
const updateOrderAt = compilePerShape(
  (s: { columns: string[]; audited: boolean }) => `${s.columns.join()}|${s.audited}`,
  (_db, { columns, audited }, ...a: unknown[]) => {
    const n = columns.length;
    const paidAt = columns.indexOf("paid_at");
    const sets = columns.map((column, i) => sql`${sql.ref(column)} = ${a[i]}`);
    return sql<{ version: string }>`
      with changed as (
        update orders set ${sql.join(sets)} where id = ${a[n]} and xmin = ${a[n + 1]}::xid returning id, xmin::text as version
      )${paidAt < 0 ? sql`` : sql`, items as (update order_items set paid_at = ${a[paidAt]} where order_id = (select id from changed))`}${
        audited ? sql`, audit as (${insertAuditAfter("changed", auditValuesAt(a, n + 2))})` : sql``
      }
      select version from changed`;
  },
);

const columnsOf = (c: OrderChanges) => Object.fromEntries(Object.entries(ORDER_COLUMNS).map(([field, column]) => [column, c[field as keyof OrderChanges]]));

export function createPgOrderRepository(db: Db): OrderRepository {
  async function withItems(rows: OrderRow[]): Promise<OrderView[]> {
    if (rows.length === 0) return [];
    const items = await itemsOf(
      db,
      rows.map((r) => r.id),
    );
    const byOrder = Map.groupBy(items, (item) => item.order_id);
    return rows.map((row) => ({
      ...toOrder(row, []),
      items: (byOrder.get(row.id) ?? []).map((i) => ({
        ...toItem(i),
        product: { id: i.product_id, name: i.name, slug: i.slug, featuredImage: i.featured_image, heatLevel: i.heat_level },
      })),
    }));
  }

  return {
    async create(order, audit) {
      return (await insertOrder(db, order, audit)).length > 0;
    },

    async findById(id) {
      return (await withItems(await byId(db, id)))[0] ?? null;
    },

    async findByNumber(orderNumber) {
      return (await withItems(await db.selectFrom("orders").selectAll().where("order_number", "=", orderNumber).execute()))[0] ?? null;
    },

    async idOfPaymentIntent(intentId) {
      const row = await db.selectFrom("orders").select("id").where("stripe_payment_intent_id", "=", intentId).executeTakeFirst();
      return row?.id ?? null;
    },

    async idsOfTrackingNumber(trackingNumber) {
      const rows = await db.selectFrom("orders").select("id").where("tracking_number", "=", trackingNumber).orderBy("id").execute();
      return rows.map((row) => row.id);
    },

    async list(filter) {
      let matching = db.selectFrom("orders");
      if (filter.userId) matching = matching.where("user_id", "=", filter.userId);
      if (filter.status) matching = matching.where("status", "=", filter.status);
      if (filter.paymentStatus) matching = matching.where("payment_status", "=", filter.paymentStatus);
      let page = matching
        .selectAll()
        .select((eb) => eb.fn.countAll<string>().over().as("total"))
        .orderBy("created_at", filter.sortOrder)
        .orderBy("id", filter.sortOrder)
        .offset(filter.skip);
      if (filter.take !== null) page = page.limit(filter.take);
      const rows = await page.execute();
      const total = await totalOf(rows, filter.skip, () => matching.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow());
      return { orders: await withItems(rows), total };
    },

    async queue(filter, page) {
      // The first page: two statements on two connections at once, the count the slower, which need
      // not wait for the page. A later one: the count first, so a page past the last reads no order
      // (page=90071992547409 with a search read and sorted every match, a second or two; found by an attack).
      const [rows, total] =
        page.page === 1
          ? await Promise.all([queuePage(db, filter, page), queueCount(db, filter)])
          : await queueCount(db, filter).then(async (total) => [offsetOf(page) < total ? await queuePage(db, filter, page) : [], total] as const);
      const orders = await withItems(rows);
      return {
        items: orders.map((order, i) => ({ ...order, customer: { id: order.userId, email: rows[i]!.customer_email, name: rows[i]!.customer_name } })),
        total,
      };
    },

    exportLines(filter, batchSize) {
      return exportLines(db, filter, batchSize);
    },

    async *everyOrder(filter, batchSize) {
      // The last row's creation time as text: a Date keeps milliseconds, the column microseconds,
      // so an order a few microseconds older in the same millisecond was skipped (found by a review).
      let after: { at: string; id: string } | undefined;
      for (;;) {
        let batch = db.selectFrom("orders").selectAll().select(sql<string>`created_at::text`.as("at"));
        if (filter.status) batch = batch.where("status", "=", filter.status);
        if (after) {
          const { at, id } = after;
          batch = batch.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(sql<Date>`${at}::timestamptz`, id)));
        }
        // Read after the unit of work handed the generator over: its refusals are made here.
        const rows = await batch
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .limit(batchSize)
          .execute()
          .catch((error: unknown) => {
            throw asDatabaseRefusal(error);
          });
        if (rows.length > 0)
          yield await withItems(rows).catch((error: unknown) => {
            throw asDatabaseRefusal(error);
          });
        if (rows.length < batchSize) return;
        const last = rows.at(-1)!;
        after = { at: last.at, id: last.id };
      }
    },

    async unpaidOf(userId, limit) {
      const rows = await unpaidOf(db, userId, limit);
      return rows.map((r) => ({ id: r.id, orderNumber: r.order_number }));
    },

    async findUnpaidBefore(before, limit, after) {
      let unpaid = db
        .selectFrom("orders")
        .select(["id", "order_number", "stripe_payment_intent_id", "created_at"])
        .where("status", "=", PENDING)
        .where("payment_status", "in", UNPAID)
        .where("created_at", "<", before);
      if (after) unpaid = unpaid.where((eb) => eb(eb.refTuple("created_at", "id"), ">", eb.tuple(after.createdAt, after.id)));
      const rows = await unpaid.orderBy("created_at").orderBy("id").limit(limit).execute();
      return rows.map((r) => ({ id: r.id, orderNumber: r.order_number, stripePaymentIntentId: r.stripe_payment_intent_id, createdAt: r.created_at }));
    },

    async findWithoutIntentBy(at, limit, after) {
      let stranded = db
        .selectFrom("orders")
        .select(["id", "order_number", "total_cents", "created_at"])
        .where("status", "=", PENDING)
        .where("payment_status", "=", PENDING)
        .where("stripe_payment_intent_id", "is", null)
        .where("created_at", "<=", at);
      if (after) stranded = stranded.where((eb) => eb(eb.refTuple("created_at", "id"), ">", eb.tuple(after.createdAt, after.id)));
      const rows = await stranded.orderBy("created_at").orderBy("id").limit(limit).execute();
      return rows.map((r) => ({ id: r.id, orderNumber: r.order_number, total: r.total_cents, createdAt: r.created_at }));
    },

    async findPaymentsStartedBy(at, limit, after) {
      let unsettled = db
        .selectFrom("orders")
        .select(["id", "order_number", "total_cents", "stripe_payment_intent_id", "payment_attempts", "payment_started_at"])
        .where("payment_started_at", "is not", null)
        .where("payment_started_at", "<=", at);
      if (after) unsettled = unsettled.where((eb) => eb(eb.refTuple("payment_started_at", "id"), ">", eb.tuple(after.paymentStartedAt, after.id)));
      const rows = await unsettled.orderBy("payment_started_at").orderBy("id").limit(limit).execute();
      return rows.map((r) => ({
        id: r.id,
        orderNumber: r.order_number,
        total: r.total_cents,
        stripePaymentIntentId: r.stripe_payment_intent_id,
        paymentAttempts: r.payment_attempts,
        paymentStartedAt: r.payment_started_at!,
      }));
    },

    async lock(id, options = {}) {
      const [row] = options.skipLocked ? await byIdLockedOrSkipped(db, id) : await byIdLocked(db, id);
      if (!row) return null;
      return toOrder(row, row.items.map(toItem));
    },

    async update(id, c) {
      // The items carry a copy of the paid time, written with it in the same statement (migration 0014: the sales report reads lines by it).
      const paidAt = c.paidAt;
      await (paidAt === undefined ? db : db.with("items", (qb) => qb.updateTable("order_items").set({ paid_at: paidAt }).where("order_id", "=", id)))
        .updateTable("orders")
        .set(columnsOf(c))
        .where("id", "=", id)
        .execute();
    },

    async read(id) {
      const [row] = await byIdVersioned(db, id);
      return row ? { order: toOrder(row, row.items.map(toItem)), version: row.version } : null;
    },

    async updateAt(id, version, c, audit) {
      const changes = Object.entries(ORDER_COLUMNS).flatMap(([field, column]) => {
        const value = c[field as keyof OrderChanges];
        return value === undefined ? [] : [[column, value] as const];
      });
      const shape = { columns: changes.map(([column]) => column), audited: audit !== null };
      const [row] = await updateOrderAt(db, shape, ...changes.map(([, value]) => value), id, version, ...(audit ? auditArgs(audit) : []));
      return row?.version ?? null;
    },

    async attachPaymentIntent(id, intentId, at) {
      return (await attachIntent(db, id, intentId, at)).length > 0;
    },

    async markIntentStopDue(id, at) {
      let marked = db.updateTable("orders").set({ intent_stop_due_at: at }).where("id", "=", id);
      if (at) marked = marked.where("stripe_payment_intent_id", "is not", null);
      await marked.execute();
    },

    async claimIntentStopsDue(now, until, limit) {
      // One statement, so the lease lands with the claim; skip locked lets another instance take others.
      const rows = await db
        .with("claimed", (qb) =>
          qb
            .selectFrom("orders")
            .select(["id", "intent_stop_due_at as due"])
            .where("intent_stop_due_at", "<=", now)
            .where("stripe_payment_intent_id", "is not", null)
            .orderBy("intent_stop_due_at")
            .orderBy("id")
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .updateTable("orders")
        .from("claimed")
        .set({ intent_stop_due_at: until })
        .whereRef("orders.id", "=", "claimed.id")
        // The claimed ids as an array too, so the orders are found by their key: joined to the claim
        // alone, the plan made once for every limit took it for a tenth of the orders due and hashed
        // the whole table (14,000 pages and 170 ms of 200,000 orders, each tick with a stop due).
        .where("orders.id", "=", sql<string>`any(array(select id from claimed))`)
        .returning(["orders.id", "orders.order_number", "orders.stripe_payment_intent_id", "claimed.due"])
        .execute();
      // Returned in no order of the claim's: put back in it.
      rows.sort((a, b) => a.due!.getTime() - b.due!.getTime() || (a.id < b.id ? -1 : 1));
      return rows.map((r) => ({ id: r.id, orderNumber: r.order_number, stripePaymentIntentId: r.stripe_payment_intent_id! }));
    },
  };
}
