import type { Address } from "../../domain/address.ts";
import { type Order, type OrderStatus, newOrder } from "../../domain/order.ts";
import { orderNumber } from "../../domain/order-number.ts";
import { SHOP_PROCESSOR } from "../../domain/payment.ts";
import type { Product } from "../../domain/product.ts";
import { type RefundRecord, orderRefundKey } from "../../domain/refund.ts";
import type { User } from "../../domain/user.ts";
import type { HistoryBatch } from "../ports/sales.ts";

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

/** sfc32, seeded by splitmix32: 128 bits of state, so two seeds' sequences never run into each other. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let [a, b, c, d] = [split(), split(), split(), split()];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** An index by weight: [70, 20, 10] gives 0 seven times in ten. */
function weighted(random: Random, weights: readonly number[]): number {
  let r = random() * weights.reduce((sum, w) => sum + w, 0);
  for (const [i, w] of weights.entries()) {
    r -= w;
    if (r < 0) return i;
  }
  return weights.length - 1;
}
const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";
/** A CUID2-shaped id (a letter, then 23 letters and digits) from the seeded sequence. */
function idOf(random: Random): string {
  let id = ALPHANUMERIC[Math.floor(random() * 26)]!;
  for (let i = 0; i < 23; i++) id += ALPHANUMERIC[Math.floor(random() * 36)];
  return id;
}

const FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis", "Radia", "Niklaus", "Sophie", "Tim", "Hedy"];
const LAST = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Allen",
  "Thompson",
  "Hamilton",
  "Ritchie",
  "Perlman",
  "Wirth",
  "Wilson",
  "Lamarr",
];
/** Where customers live (most in the lower 48; AK, HI and PR ship dearer; a few abroad, never free), with a made-up sales tax rate. */
const PLACES: ReadonlyArray<readonly [Omit<Address, "address1" | "address2">, number, number]> = [
  [{ city: "Austin", state: "TX", postalCode: "78701", country: "US" }, 0.0625, 14],
  [{ city: "Los Angeles", state: "CA", postalCode: "90012", country: "US" }, 0.0725, 16],
  [{ city: "Brooklyn", state: "NY", postalCode: "11201", country: "US" }, 0.04, 12],
  [{ city: "Miami", state: "FL", postalCode: "33130", country: "US" }, 0.06, 10],
  [{ city: "Chicago", state: "IL", postalCode: "60601", country: "US" }, 0.0625, 9],
  [{ city: "Seattle", state: "WA", postalCode: "98101", country: "US" }, 0.065, 8],
  [{ city: "Denver", state: "CO", postalCode: "80202", country: "US" }, 0.029, 7],
  [{ city: "Portland", state: "OR", postalCode: "97201", country: "US" }, 0, 6],
  [{ city: "Atlanta", state: "GA", postalCode: "30303", country: "US" }, 0.04, 7],
  [{ city: "Boston", state: "MA", postalCode: "02108", country: "US" }, 0.0625, 6],
  [{ city: "Anchorage", state: "AK", postalCode: "99501", country: "US" }, 0, 1],
  [{ city: "Honolulu", state: "HI", postalCode: "96813", country: "US" }, 0.04, 1],
  [{ city: "San Juan", state: "PR", postalCode: "00901", country: "US" }, 0.115, 1],
  [{ city: "Toronto", state: "ON", postalCode: "M5H 2N2", country: "CA" }, 0, 2],
];

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

interface Customer {
  user: User;
  address: Address;
  taxRate: number;
  written: boolean;
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
    customers[index] ??= aCustomer(random, spec);
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

function aCustomer(random: Random, spec: DemoOrdersSpec): Customer {
  const [place, taxRate] =
    PLACES[
      weighted(
        random,
        PLACES.map(([, , weight]) => weight),
      )
    ]!;
  const first = pick(random, FIRST);
  const last = pick(random, LAST);
  const joined = new Date(spec.now.getTime() - (YEAR_DAYS + 30) * DAY);
  const id = idOf(random);
  const user: User = {
    id,
    // Named after its id: an address already taken is this very customer, written by an earlier run of the same seed.
    email: `${first}.${last}.${id.slice(-8)}@example.com`.toLowerCase(),
    name: `${first} ${last}`,
    passwordHash: null,
    role: "CUSTOMER",
    image: null,
    isEmailVerified: true,
    createdAt: joined,
    updatedAt: joined,
  };
  const address = { ...place, address1: `${1 + Math.floor(random() * 9000)} ${pick(random, ["Main", "Oak", "Pine", "Elm", "Cedar"])} St`, address2: null };
  return { user, address, taxRate, written: false };
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
