import type { AuditEntry } from "../../domain/audit.ts";
import { type Order, type OrderView, payability } from "../../domain/order.ts";
import { awaitsFirstIntent } from "../../domain/payment.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { Product } from "../../domain/product.ts";
import type { User } from "../../domain/user.ts";
import type { ExportedLine, OrderChanges, OrderRepository } from "../../application/ports/orders.ts";
import { inQueue } from "./order-queue.ts";

const byCreation = (a: Pick<Order, "id" | "createdAt">, b: Pick<Order, "id" | "createdAt">) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What an exported line tells of its order (ExportedLine["order"]), and nothing more. */
const EXPORTED_ORDER_FIELDS = [
  "id",
  "orderNumber",
  "status",
  "paymentStatus",
  "subtotal",
  "shippingCost",
  "tax",
  "discountAmount",
  "total",
  "shippingAddress",
  "trackingNumber",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof ExportedLine["order"])[];

/**
 * An order's version: every write stores a new object for the order (no path changes one in place),
 * so the object stored is the version, numbered the first time it is asked for.
 */
const versions = new WeakMap<Order, string>();
let lastVersion = 0;
function versionOf(order: Order): string {
  let version = versions.get(order);
  if (version === undefined) {
    version = String(++lastVersion);
    versions.set(order, version);
  }
  return version;
}

export function createMemoryOrderRepository(
  orders: Map<string, Order>,
  products: Map<string, Product>,
  users: Map<string, User>,
  audit: Map<string, AuditEntry>,
  stopsDue: Map<string, Date>,
): OrderRepository {
  function customerOf(order: Order) {
    const user = users.get(order.userId);
    return { id: order.userId, email: user?.email ?? "", name: user?.name ?? null };
  }
  function update(id: string, changes: OrderChanges) {
    const order = orders.get(id);
    if (!order) return;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    orders.set(id, { ...order, ...defined });
  }
  const queued = (filter: Parameters<OrderRepository["queue"]>[0]) =>
    [...orders.values()].filter((o) => inQueue(o, users.get(o.userId), filter)).sort((a, b) => byCreation(b, a));
  function view(order: Order): OrderView {
    return structuredClone({
      ...order,
      items: order.items.map((item) => {
        const p = products.get(item.productId);
        return {
          ...item,
          product: {
            id: item.productId,
            name: p?.name ?? item.productName,
            slug: p?.slug ?? "",
            featuredImage: p?.featuredImage ?? item.productImage,
            heatLevel: p?.heatLevel ?? 0,
          },
        };
      }),
    });
  }
  return {
    async create(order, entry) {
      if ([...orders.values()].some((o) => o.orderNumber === order.orderNumber)) return false;
      orders.set(order.id, structuredClone(order));
      if (entry) audit.set(entry.id, structuredClone(entry));
      return true;
    },
    async findById(id) {
      const order = orders.get(id);
      return order ? view(order) : null;
    },
    async findByNumber(orderNumber) {
      const order = [...orders.values()].find((o) => o.orderNumber === orderNumber);
      return order ? view(order) : null;
    },
    async idOfPaymentIntent(intentId) {
      return [...orders.values()].find((o) => o.stripePaymentIntentId === intentId)?.id ?? null;
    },
    async idsOfTrackingNumber(trackingNumber) {
      return [...orders.values()]
        .filter((o) => o.trackingNumber === trackingNumber)
        .map((o) => o.id)
        .sort();
    },
    async list(filter) {
      const matching = [...orders.values()]
        .filter(
          (o) =>
            (!filter.userId || o.userId === filter.userId) &&
            (!filter.status || o.status === filter.status) &&
            (!filter.paymentStatus || o.paymentStatus === filter.paymentStatus),
        )
        .sort((a, b) => (filter.sortOrder === "asc" ? byCreation(a, b) : byCreation(b, a)));
      const page = matching.slice(filter.skip, filter.take === null ? undefined : filter.skip + filter.take);
      return { orders: page.map(view), total: matching.length };
    },
    async queue(filter, page) {
      const matching = queued(filter);
      const start = offsetOf(page);
      return { items: matching.slice(start, start + page.limit).map((o) => ({ ...view(o), customer: customerOf(o) })), total: matching.length };
    },
    async *everyOrder(filter, batchSize) {
      const matching = [...orders.values()].filter((o) => !filter.status || o.status === filter.status).sort((a, b) => byCreation(b, a));
      for (let start = 0; start < matching.length; start += batchSize) yield matching.slice(start, start + batchSize).map(view);
    },
    async *exportLines(filter, batchSize) {
      const lines = queued(filter).flatMap((o) => {
        const order = Object.fromEntries(EXPORTED_ORDER_FIELDS.map((field) => [field, structuredClone(o[field])])) as ExportedLine["order"];
        return o.items.map((item) => ({ order, customer: customerOf(o), item: structuredClone(item) }));
      });
      for (let start = 0; start < lines.length; start += batchSize) yield lines.slice(start, start + batchSize);
    },
    async unpaidOf(userId, limit) {
      return [...orders.values()]
        .filter((o) => o.userId === userId && payability(o) === null)
        .sort(byCreation)
        .slice(0, limit)
        .map(({ id, orderNumber }) => ({ id, orderNumber }));
    },
    async findUnpaidBefore(before, limit, after) {
      return [...orders.values()]
        .filter((o) => payability(o) === null && o.createdAt < before)
        .filter((o) => !after || byCreation(o, after) > 0)
        .sort(byCreation)
        .slice(0, limit)
        .map(({ id, orderNumber, stripePaymentIntentId, createdAt }) => ({ id, orderNumber, stripePaymentIntentId, createdAt }));
    },
    async findWithoutIntentBy(at, limit, after) {
      return [...orders.values()]
        .filter((o) => o.status === "PENDING" && awaitsFirstIntent(o) && o.createdAt <= at)
        .filter((o) => !after || byCreation(o, after) > 0)
        .sort(byCreation)
        .slice(0, limit)
        .map(({ id, orderNumber, total, createdAt }) => ({ id, orderNumber, total, createdAt }));
    },
    async findPaymentsStartedBy(at, limit, after) {
      const byStart = (a: Pick<Order, "id"> & { paymentStartedAt: Date }, b: Pick<Order, "id"> & { paymentStartedAt: Date }) =>
        byCreation({ id: a.id, createdAt: a.paymentStartedAt }, { id: b.id, createdAt: b.paymentStartedAt });
      return [...orders.values()]
        .flatMap(({ id, orderNumber, total, stripePaymentIntentId, paymentAttempts, paymentStartedAt }) =>
          paymentStartedAt && paymentStartedAt <= at ? [{ id, orderNumber, total, stripePaymentIntentId, paymentAttempts, paymentStartedAt }] : [],
        )
        .filter((o) => !after || byStart(o, after) > 0)
        .sort(byStart)
        .slice(0, limit)
        .map((o) => structuredClone(o));
    },
    async markIntentStopDue(id, at) {
      if (at === null) stopsDue.delete(id);
      else if (orders.get(id)?.stripePaymentIntentId) stopsDue.set(id, new Date(at));
    },
    async claimIntentStopsDue(now, until, limit) {
      const claimed = [...stopsDue]
        .filter(([id, dueAt]) => dueAt <= now && orders.get(id)?.stripePaymentIntentId)
        .sort(([a, aDue], [b, bDue]) => byCreation({ id: a, createdAt: aDue }, { id: b, createdAt: bDue }))
        .slice(0, limit)
        .map(([id]) => orders.get(id)!);
      for (const order of claimed) stopsDue.set(order.id, new Date(until));
      return claimed.map(({ id, orderNumber, stripePaymentIntentId }) => ({ id, orderNumber, stripePaymentIntentId: stripePaymentIntentId! }));
    },
    // Memory transactions already run one at a time, so there is nothing to hold (or to skip).
    async lock(id) {
      const order = orders.get(id);
      return order ? structuredClone(order) : null;
    },
    async attachPaymentIntent(id, intentId, at) {
      const order = orders.get(id);
      if (order?.status !== "PENDING" || (order.stripePaymentIntentId !== null && order.stripePaymentIntentId !== intentId)) return false;
      orders.set(id, { ...order, stripePaymentIntentId: intentId, updatedAt: at });
      return true;
    },
    async update(id, changes) {
      update(id, changes);
    },
    async read(id) {
      const order = orders.get(id);
      return order ? { order: structuredClone(order), version: versionOf(order) } : null;
    },
    async updateAt(id, version, changes, entry) {
      const order = orders.get(id);
      if (!order || versionOf(order) !== version) return null;
      update(id, changes);
      if (entry) audit.set(entry.id, structuredClone(entry));
      return versionOf(orders.get(id)!);
    },
  };
}
