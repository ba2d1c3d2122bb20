import { type Address, addressLines } from "./address.ts";
import { DomainError } from "./errors.ts";
import { type Cents, lineTotal } from "./money.ts";
import type { Permission } from "./permissions.ts";
import { priceOrder } from "./pricing.ts";

export const ORDER_STATUSES = ["PENDING", "CONFIRMED", "PROCESSING", "SHIPPED", "DELIVERED", "CANCELLED", "REFUNDED"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ["PENDING", "PAID", "FAILED", "REFUNDED"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Where an order may go from each status (decisions §4), as data: side effects (stock, refunds,
 * audit) are the use cases' business, not the table's. CANCELLED and REFUNDED are final (isFinalStatus).
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  PENDING: ["CONFIRMED", "CANCELLED"],
  CONFIRMED: ["PROCESSING", "CANCELLED", "REFUNDED"],
  PROCESSING: ["SHIPPED", "CANCELLED", "REFUNDED"],
  SHIPPED: ["DELIVERED", "REFUNDED"],
  DELIVERED: ["REFUNDED"],
  CANCELLED: [],
  REFUNDED: [],
};

/** What happens to an order's money, as the processor reports it or the shop's own refund confirms it. */
export type PaymentFact = "paid" | "failed" | "refunded";

/**
 * What each fact does to a payment (decisions §4, §8), as data: every payment status the shop writes
 * is read from here. A fact a status has no entry for changes nothing: a payment that was paid never
 * fails or is paid again, a refund is final, a second decline leaves it FAILED. A refund heard before
 * the success it follows takes an unpaid payment straight to REFUNDED. Nothing leads back to unpaid.
 */
export const PAYMENT_MOVES: Readonly<Record<PaymentStatus, Readonly<Partial<Record<PaymentFact, PaymentStatus>>>>> = {
  PENDING: { paid: "PAID", failed: "FAILED", refunded: "REFUNDED" },
  FAILED: { paid: "PAID", refunded: "REFUNDED" },
  PAID: { refunded: "REFUNDED" },
  REFUNDED: {},
};

/**
 * When a payment reached PAID, and REFUNDED: stamped by the move itself, so the sales report
 * counts a sale and its refund each when it happened. A move is always to another status (the
 * table has no move from a status to itself), so a status given is one reached now.
 */
export function paymentTimes(to: PaymentStatus | undefined, at: Date): Partial<Pick<Order, "paidAt" | "refundedAt">> {
  if (to === "PAID") return { paidAt: at };
  if (to === "REFUNDED") return { refundedAt: at };
  return {};
}

/** Whether an order has ended: its status has no move out of it. Read from the table, so a status added to it is counted right. */
export const isFinalStatus = (status: OrderStatus): boolean => ORDER_TRANSITIONS[status].length === 0;

/** The payment status after the fact, or null when the fact changes nothing (by the table). */
export function paymentAfter(status: PaymentStatus, fact: PaymentFact): PaymentStatus | null {
  return PAYMENT_MOVES[status][fact] ?? null;
}

export const isOrderStatus = (value: string): value is OrderStatus => (ORDER_STATUSES as readonly string[]).includes(value);

/** The order's next status, or a DomainError naming the moves that are allowed. */
export function transition(from: OrderStatus, to: OrderStatus): OrderStatus {
  const allowed = ORDER_TRANSITIONS[from];
  if (!allowed.includes(to)) {
    const list = allowed.length ? allowed.join(", ") : "none: it is final";
    throw new DomainError("order.invalid_transition", `An order cannot move from ${from} to ${to}; allowed: ${list}`, { from, to, allowed });
  }
  return to;
}

/** A move staff may make from an order's status, as a client offers it: what it asks and what it does. */
export interface OrderMove {
  status: OrderStatus;
  /** The permissions it needs: orders:write, and financials:refunds when it refunds. */
  permissions: Permission[];
  /** It ends a paid order, so its payment is refunded (or flagged due through the provider that took it). */
  refunds: boolean;
  /** SHIPPED needs a tracking number; no other move takes one. */
  needsTrackingNumber: boolean;
}

/** Whether moving the order to `to` ends it paid: its payment is then refunded, which needs financials:refunds. */
export function endsPaid(order: { paymentStatus: PaymentStatus }, to: OrderStatus): boolean {
  return isFinalStatus(to) && order.paymentStatus === "PAID";
}

/** The moves the status table allows from an order's status, in the table's order, with what each asks (decisions §4). */
export function movesOf(order: { status: OrderStatus; paymentStatus: PaymentStatus }): OrderMove[] {
  return ORDER_TRANSITIONS[order.status].map((to) => {
    const refunds = endsPaid(order, to);
    return {
      status: to,
      permissions: refunds ? ["orders:write", "financials:refunds"] : ["orders:write"],
      refunds,
      needsTrackingNumber: to === "SHIPPED",
    };
  });
}

/**
 * Whether `to` lies at the end of one or more moves from `from` in a status table. A processor
 * reports where a payment has got to, and its events may come late or out of order (a refund heard
 * before the success it follows), so an event may take an order over moves nobody saw; it may
 * never take it where the table has no path.
 */
export function reaches<S extends string>(table: Readonly<Record<S, readonly S[]>>, from: S, to: S): boolean {
  const seen = new Set<S>([from]);
  const queue: S[] = [from];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const next of table[at]) {
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return false;
}

/**
 * Whether an order can be paid now (decisions §4: status PENDING, payment PENDING or FAILED): null
 * when it can, else why not, in the order the checks are made (already paid comes first).
 */
export function payability(order: { status: OrderStatus; paymentStatus: PaymentStatus }): "order.already_paid" | "order.not_payable" | null {
  if (order.paymentStatus === "PAID") return "order.already_paid";
  if (order.status !== "PENDING" || (order.paymentStatus !== "PENDING" && order.paymentStatus !== "FAILED")) return "order.not_payable";
  return null;
}

/**
 * Decisions §15: a customer may cancel an order only while it is unpaid, that is payable (PENDING,
 * payment PENDING or FAILED); else why not, checked as a payment checks (already paid first).
 */
export function refuseUnlessCancellable(order: { status: OrderStatus; paymentStatus: PaymentStatus }): void {
  const why = payability(order);
  if (why === "order.already_paid") throw new DomainError(why, "Order has already been paid");
  if (why) {
    throw new DomainError("order.not_cancellable", "Order cannot be cancelled in its current status", {
      status: order.status,
      paymentStatus: order.paymentStatus,
    });
  }
}

/** The most an order may total: Stripe's largest charge in US dollars, $999,999.99. */
export const MAX_ORDER_TOTAL: Cents = 99_999_999;

/** Printable: no control or invisible format characters (a zero-width space), nor line or paragraph separators. */
const TRACKING_NUMBER = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{1,100}$/u;

/**
 * A tracking number as carriers write it in their systems (and their webhooks): in Unicode's
 * compatibility form (NFKC: fullwidth `１Ｚ` is `1Z`), without spaces, its letters a to z in
 * capitals (only those: as migration 0024 writes them, whatever the database's locale). A label
 * prints `1Z 999 AA1 01 2345 6784`, and a person may type `1z999…`: kept as typed, neither was ever
 * found by the carrier's `1Z999AA10123456784` (found by an attack).
 */
export const trackingKey = (text: string): string =>
  text
    .normalize("NFKC")
    .replace(/\s+/gu, "")
    .replace(/[a-z]/g, (letter) => letter.toUpperCase());

/**
 * The tracking number a move sets: SHIPPED needs one (1 to 100 printable characters) and no other
 * move takes one, so the number given when the order shipped is never overwritten. It is kept as
 * carriers write it (trackingKey). An invisible character is refused, not dropped: pasted with the
 * number, it would keep the carrier's updates from finding the order.
 */
export function trackingNumberFor(to: OrderStatus, given: string | null | undefined): string | null {
  const value = given?.normalize("NFKC").trim() || null;
  if (to !== "SHIPPED") {
    if (value) throw new DomainError("order.tracking_not_allowed", "A tracking number is set only when an order ships", { field: "trackingNumber" });
    return null;
  }
  if (!value) throw new DomainError("order.tracking_required", "A tracking number is needed to ship an order", { field: "trackingNumber" });
  if (!TRACKING_NUMBER.test(value)) {
    throw new DomainError("invalid_input", "Invalid request", { issues: [{ path: "trackingNumber", message: "must be 1 to 100 printable characters" }] });
  }
  return trackingKey(value);
}

/** Goods that never left come back to stock: an order cancelled or refunded before it shipped. */
export function restocksOn(from: OrderStatus, to: OrderStatus): boolean {
  return isFinalStatus(to) && from !== "SHIPPED" && from !== "DELIVERED";
}

/** The goods an order holds, product by product: what its stock moves are made of. */
export function itemQuantities(order: { items: ReadonlyArray<{ productId: string; quantity: number }> }): Array<{ productId: string; quantity: number }> {
  return order.items.map(({ productId, quantity }) => ({ productId, quantity }));
}

/** How many units an order holds, all its lines together: what the sales report counts as sold. */
export function unitsOf(order: { items: ReadonlyArray<{ quantity: number }> }): number {
  return order.items.reduce((sum, item) => sum + item.quantity, 0);
}

/** A line of an order: the product's name, SKU and image are copied, so it keeps them whatever becomes of the product. */
export interface OrderItem {
  id: string;
  productId: string;
  productName: string;
  productSku: string;
  productImage: string;
  quantity: number;
  unitPrice: Cents;
  totalPrice: Cents;
}

/** The product as it is now, shown beside an order item. */
export interface OrderItemProduct {
  id: string;
  name: string;
  slug: string;
  featuredImage: string;
  heatLevel: number;
}

export interface Order {
  id: string;
  orderNumber: string;
  userId: string;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  subtotal: Cents;
  shippingCost: Cents;
  tax: Cents;
  discountAmount: Cents;
  total: Cents;
  /** Decisions §2: the shipping address as text, one line each. */
  shippingMethod: string;
  shippingAddress: Address;
  billingAddress: Address;
  trackingNumber: string | null;
  customerNotes: string | null;
  stripePaymentIntentId: string | null;
  /** Attempts at paying it so far: each gets its own idempotency keys at the processor. */
  paymentAttempts: number;
  /** When the attempt now waiting on the processor began; null when none is. */
  paymentStartedAt: Date | null;
  /** Who took the money (stripe, square, paypal); null until paid. */
  paidVia: string | null;
  /** That provider's id of the payment (an intent, a Square payment, a PayPal capture). */
  paidReference: string | null;
  /** When its payment became PAID (the sales report's time of the sale); null while unpaid, or never paid at all. */
  paidAt: Date | null;
  /** When its payment became REFUNDED; null unless it is. */
  refundedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  items: OrderItem[];
}

/** An order as read back: each item with its product as it is now. */
export type OrderView = Omit<Order, "items"> & { items: Array<OrderItem & { product: OrderItemProduct }> };

/** A cart line as an order takes it: the product as it is at checkout. */
export interface OrderedLine {
  productId: string;
  quantity: number;
  product: { name: string; sku: string; featuredImage: string; price: Cents };
}

export interface NewOrderFields {
  id: string;
  orderNumber: string;
  userId: string;
  /** One id per line, for the order items. */
  itemIds: readonly string[];
  lines: readonly OrderedLine[];
  shippingAddress: Address;
  billingAddress: Address;
  tax: Cents;
  notes: string | null;
  at: Date;
}

/**
 * A new order (decisions §4: PENDING, payment PENDING): the lines' name, SKU, image and price
 * copied onto its items, shipping by the rules of §3 and the totals in cents.
 */
export function newOrder(fields: NewOrderFields): Order {
  const items = fields.lines.map(
    (line, i): OrderItem => ({
      id: fields.itemIds[i]!,
      productId: line.productId,
      productName: line.product.name,
      productSku: line.product.sku,
      productImage: line.product.featuredImage,
      quantity: line.quantity,
      unitPrice: line.product.price,
      totalPrice: lineTotal(line.product.price, line.quantity),
    }),
  );
  const totals = priceOrder(items, fields.shippingAddress, fields.tax);
  return {
    id: fields.id,
    orderNumber: fields.orderNumber,
    userId: fields.userId,
    status: "PENDING",
    paymentStatus: "PENDING",
    ...totals,
    shippingMethod: addressLines(fields.shippingAddress),
    shippingAddress: fields.shippingAddress,
    billingAddress: fields.billingAddress,
    trackingNumber: null,
    customerNotes: fields.notes,
    stripePaymentIntentId: null,
    paymentAttempts: 0,
    paymentStartedAt: null,
    paidVia: null,
    paidReference: null,
    paidAt: null,
    refundedAt: null,
    createdAt: fields.at,
    updatedAt: fields.at,
    items,
  };
}
