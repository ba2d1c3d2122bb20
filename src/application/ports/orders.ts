import type { AuditEntry } from "../../domain/audit.ts";
import type { Order, OrderItem, OrderStatus, OrderView, PaymentStatus } from "../../domain/order.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";
import type { User } from "../../domain/user.ts";

export interface OrderFilter {
  /** Only this user's orders; every user's when absent. */
  userId?: string;
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  skip: number;
  /** Null: every order from `skip` on. */
  take: number | null;
  /** By creation time (then id). */
  sortOrder: "asc" | "desc";
}

export type OrderChanges = Partial<
  Pick<
    Order,
    | "status"
    | "paymentStatus"
    | "trackingNumber"
    | "stripePaymentIntentId"
    | "paymentAttempts"
    | "paymentStartedAt"
    | "paidVia"
    | "paidReference"
    | "paidAt"
    | "refundedAt"
  >
> & { updatedAt: Date };

/**
 * An order as read without a lock, and the version of it that was read: a write given that version
 * lands only if nothing else wrote the order in between (optimistic concurrency).
 */
export interface OrderAt {
  order: Order;
  version: string;
}

export type UnpaidOrder = Pick<Order, "id" | "orderNumber" | "stripePaymentIntentId" | "createdAt">;

/** An order whose checkout committed and never stored a payment intent. */
export type OrderWithoutIntent = Pick<Order, "id" | "orderNumber" | "total" | "createdAt">;

/** An order with a payment attempt begun and never settled. */
export type UnsettledPayment = Pick<Order, "id" | "orderNumber" | "total" | "stripePaymentIntentId" | "paymentAttempts"> & { paymentStartedAt: Date };
/** An order paid through another provider whose own (Stripe) intent is still to be cancelled. */
export type IntentStopDue = Pick<Order, "id" | "orderNumber"> & { stripePaymentIntentId: string };

/** The back office's filters of every customer's orders (decisions §12): each one optional, all given ones together. */
export interface OrderQueueFilter {
  /** Any of these statuses. */
  statuses?: readonly OrderStatus[];
  paymentStatuses?: readonly PaymentStatus[];
  /** Part of the order number, or of the customer's e-mail or name, in any case. */
  q?: string;
  /** Made at or after. */
  from?: Date;
  /** Made before. */
  to?: Date;
  customerId?: string;
}

export type Customer = Pick<User, "id" | "email" | "name">;

/** An order in the back office's queue: with its customer. */
export type QueuedOrder = OrderView & { customer: Customer };

/** One line of an order as an export writes it: the line, its order and its customer. */
export interface ExportedLine {
  order: Pick<
    Order,
    | "id"
    | "orderNumber"
    | "status"
    | "paymentStatus"
    | "subtotal"
    | "shippingCost"
    | "tax"
    | "discountAmount"
    | "total"
    | "shippingAddress"
    | "trackingNumber"
    | "createdAt"
    | "updatedAt"
  >;
  customer: Customer;
  item: OrderItem;
}

export interface OrderReader {
  findById(id: string): Promise<OrderView | null>;
  /** The order as it is, and its version, with no lock taken (see OrderAt). */
  read(id: string): Promise<OrderAt | null>;
  findByNumber(orderNumber: string): Promise<OrderView | null>;
  /** The order whose current payment intent this is. */
  idOfPaymentIntent(intentId: string): Promise<string | null>;
  /** The orders shipped with this tracking number (orders sent in one parcel share it), in id order: the order to lock them in. */
  idsOfTrackingNumber(trackingNumber: string): Promise<string[]>;
  /** One page of orders, and how many match in all. */
  list(filter: OrderFilter): Promise<{ orders: OrderView[]; total: number }>;
  /** The back office's queue: every customer's orders that match, newest first (then by id), one page of them, and how many match. */
  queue(filter: OrderQueueFilter, page: PageRequest): Promise<Paged<QueuedOrder>>;
  /**
   * Every line of every order that matches, newest order first (then by id), each order's lines in
   * their order: in keyset batches of at most `batchSize` lines, each read by a statement of its
   * own, so nothing is held (no transaction, no connection) between two batches.
   */
  exportLines(filter: OrderQueueFilter, batchSize: number): AsyncGenerator<ExportedLine[]>;
  /**
   * Every customer's orders, of one status if given, newest first (then by id): in keyset batches
   * of at most `batchSize` orders, each read by a statement of its own, so nothing is held between
   * two batches and an order made meanwhile is read once at most.
   */
  everyOrder(filter: { status?: OrderStatus }, batchSize: number): AsyncGenerator<OrderView[]>;
  /** The customer's PENDING orders not paid (payment PENDING or FAILED), oldest first (then by id), at most `limit` of them. */
  unpaidOf(userId: string, limit: number): Promise<Array<Pick<Order, "id" | "orderNumber">>>;
  /**
   * PENDING orders not paid (payment PENDING or FAILED) created before the cut-off, oldest first
   * (then by id), starting after the given one when one is given.
   */
  findUnpaidBefore(before: Date, limit: number, after?: Pick<UnpaidOrder, "id" | "createdAt">): Promise<UnpaidOrder[]>;
  /**
   * PENDING orders, payment PENDING, with no payment intent stored, created at or before `at`,
   * oldest first (then by id), starting after the given one when one is given.
   */
  findWithoutIntentBy(at: Date, limit: number, after?: Pick<OrderWithoutIntent, "id" | "createdAt">): Promise<OrderWithoutIntent[]>;
  /**
   * Orders, whatever their status, whose payment attempt began at or before `at` and is still
   * marked as running, oldest attempt first (then by id), starting after the given one when given.
   */
  findPaymentsStartedBy(at: Date, limit: number, after?: Pick<UnsettledPayment, "id" | "paymentStartedAt">): Promise<UnsettledPayment[]>;
}

export interface OrderRepository extends OrderReader {
  /** Writes the order and its items, and its audit entry when given, in one statement; false, writing nothing, when its order number is taken. */
  create(order: Order, audit?: AuditEntry): Promise<boolean>;
  /**
   * Locks the order until the transaction ends and returns it as locked. With `skipLocked`, an
   * order another transaction holds is passed over (null), instead of waited for.
   */
  lock(id: string, options?: { skipLocked?: boolean }): Promise<Order | null>;
  update(id: string, changes: OrderChanges): Promise<void>;
  /**
   * Writes the changes, and the audit entry with them in the same statement, only if the order is
   * still at `version`: the new version. Null, writing nothing, when another write came in between
   * (the caller then reads again, or takes the lock). One statement: no transaction is needed around it.
   */
  updateAt(id: string, version: string, changes: OrderChanges, audit: AuditEntry | null): Promise<string | null>;
  /**
   * Stores the first payment intent of an order still PENDING and without one; true also when the
   * order holds this very intent already (housekeeping stored it first); false, changing nothing, otherwise.
   */
  attachPaymentIntent(id: string, intentId: string, at: Date): Promise<boolean>;
  /**
   * Marks the order's payment intent as due to be cancelled at `at` (the order was paid through
   * another provider), or, with null, as stopped. Changes nothing else of the order; one without an
   * intent is never due.
   */
  markIntentStopDue(id: string, at: Date | null): Promise<void>;
  /**
   * Takes up to `limit` orders whose intent is due to be cancelled at `now`, longest due first, and
   * makes each one due again at `until` (a lease: an attempt that fails, or whose process dies, is
   * tried again then). Orders another transaction holds are passed over, so instances at once never
   * take the same one.
   */
  claimIntentStopsDue(now: Date, until: Date, limit: number): Promise<IntentStopDue[]>;
}
