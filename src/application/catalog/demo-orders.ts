import { type Order, type OrderStatus, newOrder } from "../../domain/order.ts";
import { orderNumber } from "../../domain/order-number.ts";
import { SHOP_PROCESSOR } from "../../domain/payment.ts";
import type { Product } from "../../domain/product.ts";
import { type RefundRecord, orderRefundKey } from "../../domain/refund.ts";
import type { User } from "../../domain/user.ts";
import type { HistoryBatch } from "../ports/sales.ts";
import { type Customer, aCustomer } from "./demo-customers.ts";
import { type Random, idOf, seededRandom, weighted } from "./seeded-random.ts";

/**
 * A year of made-up trade for demos and benches (docs/back-office.md, "Demo data"), the same for
 * the same seed and moment: customers, orders of one to five lines, paid a few minutes after
 * checkout and moved on by age (confirmed, processing, shipped, delivered), a few never paid
 * (cancelled as expired, some after a declined card), a few refunded in full, each with the
 * refund the shop made. Stock is left as it is: the goods of a year ago were restocked since.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const YEAR_DAYS = 365;

export interface DemoOrdersSpec {
  /** How many orders the history holds. */
  orders: number;
  seed: number;
  /** The history ends here and goes back a year. */
  now: Date;
  /** ORDER_NUMBER_PREFIX. */
  numberPrefix: string;
  /** What is on sale (prices as they are now). */
  products: readonly Product[];
}

/**
 * The history, handed out a batch at a time, oldest orders first, each batch with the customers
 * it brings in. Asked for more than `orders`, it goes on with orders of the last day (to make up
 * for ones the database left out).
 */
export function demoOrders(spec: DemoOrdersSpec): { next(count: number): HistoryBatch } {
  const random = seededRandom(spec.seed);
  const customers: Customer[] = [];
  const customerCount = Math.max(1, Math.ceil(spec.orders / 4));
  const numbers = new Set<string>();
  // Busier as the year goes on: a day's weight grows from 0.6 to 1 (drawn by rejection).
  const times = Float64Array.from({ length: spec.orders }, () => {
    for (;;) {
      const x = random();
      if (random() < 0.6 + 0.4 * x) return spec.now.getTime() - (1 - x) * YEAR_DAYS * DAY;
    }
  }).sort();
  const customerAt = (index: number): Customer => {
    customers[index] ??= aCustomer(random, spec.now);
    return customers[index]!;
  };
  let made = 0;
  function next(count: number): HistoryBatch {
    const batch = { customers: [] as User[], orders: [] as Order[], refunds: [] as RefundRecord[] };
    for (const end = made + count; made < end; made++) {
      // A few repeat customers buy most: a quarter of them place half the orders.
      const customer = customerAt(Math.floor(customerCount * random() ** 2));
      if (!customer.written) batch.customers.push(customer.user);
      customer.written = true;
      const createdAt = new Date(times[made] ?? spec.now.getTime() - random() * DAY);
      const { order, refund } = anOrder(random, spec, customer, createdAt, numbers);
      batch.orders.push(order);
      if (refund) batch.refunds.push(refund);
    }
    return batch;
  }
  return { next };
}

function anOrder(
  random: Random,
  spec: DemoOrdersSpec,
  customer: Customer,
  createdAt: Date,
  numbers: Set<string>,
): { order: Order; refund: RefundRecord | null } {
  const id = idOf(random);
  let number: string;
  do number = orderNumber(spec.numberPrefix, createdAt, (n) => Math.floor(random() * n));
  while (numbers.has(number));
  numbers.add(number);
  const lineCount = Math.min(1 + weighted(random, [35, 30, 20, 10, 5]), spec.products.length);
  const chosen = new Set<Product>();
  // The first products sell best.
  while (chosen.size < lineCount) chosen.add(spec.products[Math.floor(spec.products.length * random() ** 1.5)]!);
  const lines = [...chosen].map((product) => ({ productId: product.id, quantity: 1 + weighted(random, [70, 22, 8]), product }));
  const subtotal = lines.reduce((sum, l) => sum + l.product.price * l.quantity, 0);
  const placed = newOrder({
    id,
    orderNumber: number,
    userId: customer.user.id,
    itemIds: lines.map(() => idOf(random)),
    lines,
    shippingAddress: customer.address,
    billingAddress: customer.address,
    tax: Math.round(subtotal * customer.taxRate),
    notes: null,
    at: createdAt,
  });
  return settle(random, spec.now, placed);
}

/** What became of an order by now: never paid (6 %), refunded in full (4 % of those paid, within three weeks), or on its way by age. */
function settle(random: Random, now: Date, order: Order): { order: Order; refund: RefundRecord | null } {
  const created = order.createdAt.getTime();
  const intent = `pi_demo_${order.id}`;
  if (random() < 0.06) {
    // Expired unpaid after its hour, some after a declined card (none left waiting: housekeeping would take them up).
    const failed = random() < 0.25;
    const expiredAt = new Date(Math.min(created + 60 * MINUTE, now.getTime()));
    return {
      order: { ...order, status: "CANCELLED", paymentStatus: failed ? "FAILED" : "PENDING", paymentAttempts: failed ? 1 : 0, updatedAt: expiredAt },
      refund: null,
    };
  }
  const paidAt = new Date(Math.min(created + (1 + random() * 9) * MINUTE, now.getTime()));
  const paid = {
    ...order,
    paymentStatus: "PAID" as const,
    stripePaymentIntentId: intent,
    paymentAttempts: 1,
    paidVia: SHOP_PROCESSOR,
    paidReference: intent,
    paidAt,
  };
  const tracking = `1Z${idOf(random).slice(0, 16).toUpperCase()}`;
  const refundedAt = random() < 0.04 ? paidAt.getTime() + (0.05 + random() ** 2 * 21) * DAY : Number.POSITIVE_INFINITY;
  if (refundedAt < now.getTime()) {
    // Refunded before it shipped: cancelled; after: refunded, its tracking number kept.
    const shipped = refundedAt - paidAt.getTime() > 2 * DAY;
    const at = new Date(refundedAt);
    const refund: RefundRecord = {
      id: idOf(random),
      orderId: order.id,
      intentId: intent,
      idempotencyKey: orderRefundKey(order.id),
      reason: "order_ended",
      amount: order.total,
      requestedAt: at,
      attempts: 1,
      nextAttemptAt: new Date(refundedAt + 2 * MINUTE),
      lastError: null,
      confirmedAt: at,
      processorRefundId: `re_demo_${order.id}`,
    };
    const status: OrderStatus = shipped ? "REFUNDED" : "CANCELLED";
    return { order: { ...paid, status, paymentStatus: "REFUNDED", trackingNumber: shipped ? tracking : null, refundedAt: at, updatedAt: at }, refund };
  }
  const age = now.getTime() - paidAt.getTime();
  const [status, since]: [OrderStatus, number] =
    age < DAY ? ["CONFIRMED", 0] : age < 2 * DAY ? ["PROCESSING", DAY] : age < 6 * DAY ? ["SHIPPED", 2 * DAY] : ["DELIVERED", 6 * DAY];
  const shipped = status === "SHIPPED" || status === "DELIVERED";
  return { order: { ...paid, status, trackingNumber: shipped ? tracking : null, updatedAt: new Date(paidAt.getTime() + since) }, refund: null };
}
