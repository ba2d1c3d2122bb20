import { type Address, addressProblems, normalizeAddress } from "../../domain/address.ts";
import type { RequestOrigin } from "../../domain/audit.ts";
import type { CartLine } from "../../domain/cart.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Cents } from "../../domain/money.ts";
import { type Order, newOrder } from "../../domain/order.ts";
import { orderNumber } from "../../domain/order-number.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";

export type AddressInput = Omit<Address, "address2" | "country"> & { address2?: string | null; country?: string };

export interface OrderRequest {
  /** The cart lines to order; null: every line the shopper sees (POST /api/cart/checkout). */
  cartItemIds: readonly string[] | null;
  shippingAddress: AddressInput;
  billingAddress?: AddressInput;
  notes?: string;
}

export interface PlacedOrder {
  orderId: string;
  orderNumber: string;
  clientSecret: string;
  amount: Cents;
}

export type CheckoutDeps = Pick<Deps, "uow" | "tax" | "payments" | "ids" | "clock" | "random" | "logger">;

/** Attempts at a free order number before giving up (36^4 numbers a day per prefix: a collision is rare, two in a row rarer). */
const ORDER_NUMBER_ATTEMPTS = 10;

/**
 * Turns cart lines into an order (decisions §4), step by step: the addresses are checked, the
 * lines priced, tax asked for before anything is written (a failure changes nothing); then one
 * transaction locks the lines, takes the stock (never below zero), writes the order with its items
 * and audit entry, and removes the lines; after commit the payment intent is created, and if that
 * fails the order is undone (cancelled, stock back, lines back) and the caller gets a 500.
 */
export async function placeOrder(deps: CheckoutDeps, prefix: string, userId: string, request: OrderRequest, origin: RequestOrigin): Promise<PlacedOrder> {
  const shippingAddress = checkedAddress(request.shippingAddress, "shippingAddress");
  const billingAddress = request.billingAddress ? checkedAddress(request.billingAddress, "billingAddress") : shippingAddress;
  const ids = request.cartItemIds ? [...new Set(request.cartItemIds)] : null;

  const priced = orderable(await deps.uow.read((db) => db.carts.lines(userId)), ids);
  const tax = await taxFor(deps, priced, shippingAddress);
  const order = await deps.uow.transaction(async (tx) => {
    const lines = await lockSameLines(tx, userId, ids, priced);
    await takeStock(tx, deps, lines);
    const placed = await writeOrder(tx, deps, prefix, { userId, lines, shippingAddress, billingAddress, tax, notes: request.notes?.trim() || null });
    await recordAudit(tx, deps, {
      userId,
      action: "order.create",
      entityType: "order",
      entityId: placed.id,
      changes: { orderNumber: placed.orderNumber, total: placed.total, items: placed.items.map((i) => ({ productId: i.productId, quantity: i.quantity })) },
      origin,
    });
    await tx.carts.removeLines(lines.map((line) => line.id));
    return placed;
  });
  return attachPaymentIntent(deps, order, priced, origin);
}

function checkedAddress(input: AddressInput, field: string): Address {
  const address = normalizeAddress(input);
  const problems = addressProblems(address);
  if (problems.length) {
    throw new DomainError("invalid_input", "Invalid request", { issues: problems.map((p) => ({ path: `${field}.${p.field}`, message: p.message })) });
  }
  return address;
}

/** The lines to order among what the shopper sees (decisions §4: a line whose product is off sale is not in the cart). */
function orderable(cart: CartLine[], ids: string[] | null): CartLine[] {
  const visible = cart.filter((line) => line.product.isActive);
  if (ids === null) {
    if (visible.length === 0) throw new DomainError("cart.empty", "Your cart is empty");
    return visible;
  }
  const wanted = visible.filter((line) => ids.includes(line.id));
  if (wanted.length !== ids.length) {
    throw new DomainError("cart.items_not_found", "Cart items not found", { cartItemIds: ids.filter((id) => !wanted.some((line) => line.id === id)) });
  }
  return wanted;
}

/** Decisions §3: tax from the processor's tax service; a failure stops the order, and no tax is ever guessed. */
async function taxFor(deps: Pick<Deps, "tax" | "logger">, lines: CartLine[], shippingAddress: Address): Promise<Cents> {
  try {
    const result = await deps.tax.calculate({
      lines: lines.map((line) => ({ reference: line.productId, amount: line.product.price * line.quantity, quantity: line.quantity })),
      shippingAddress,
      currency: "usd",
    });
    return result.tax;
  } catch (error) {
    deps.logger.error("order.tax_failed", { error: error instanceof Error ? error.message : String(error) });
    throw new DomainError("tax.unavailable", "Tax could not be calculated; no order was made");
  }
}

/**
 * Locks the lines and checks they are still the ones priced: gone (another checkout took them) is
 * "not found"; a changed quantity or price is a changed cart, since tax was asked for the old one.
 */
async function lockSameLines(tx: Repositories, userId: string, ids: string[] | null, priced: CartLine[]): Promise<CartLine[]> {
  const locked = (await tx.carts.lockLines(userId, ids ?? priced.map((line) => line.id))).filter((line) => line.product.isActive);
  if (locked.length !== priced.length) {
    throw new DomainError("cart.items_not_found", "Cart items not found", { cartItemIds: priced.filter((p) => !locked.some((l) => l.id === p.id)).map((p) => p.id) });
  }
  const same = priced.every((p) => locked.some((l) => l.id === p.id && l.quantity === p.quantity && l.product.price === p.product.price));
  if (!same) throw new DomainError("cart.changed", "Your cart changed while the order was being placed; please try again");
  return locked;
}

async function takeStock(tx: Repositories, deps: Pick<Deps, "clock">, lines: CartLine[]): Promise<void> {
  const shortfalls = await tx.products.takeStock(
    lines.map((line) => ({ productId: line.productId, quantity: line.quantity })),
    deps.clock.now(),
  );
  const [first] = shortfalls;
  if (first) throw new DomainError("inventory.insufficient", "Insufficient inventory", { ...first, shortfalls });
}

async function writeOrder(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock" | "random">,
  prefix: string,
  fields: { userId: string; lines: CartLine[]; shippingAddress: Address; billingAddress: Address; tax: Cents; notes: string | null },
): Promise<Order> {
  const at = deps.clock.now();
  const id = deps.ids.next();
  const itemIds = fields.lines.map(() => deps.ids.next());
  for (let attempt = 0; attempt < ORDER_NUMBER_ATTEMPTS; attempt++) {
    const order = newOrder({ ...fields, id, itemIds, orderNumber: orderNumber(prefix, at, (n) => deps.random.below(n)), at });
    if (await tx.orders.create(order)) return order;
  }
  throw new Error(`no free order number after ${ORDER_NUMBER_ATTEMPTS} attempts`);
}

/**
 * Decisions §4: the payment intent is created after commit (amount in cents, the order in its
 * metadata, an idempotency key from the order id), and its id stored. If that fails, the order is
 * undone and the caller gets a 500.
 */
async function attachPaymentIntent(deps: CheckoutDeps, order: Order, lines: CartLine[], origin: RequestOrigin): Promise<PlacedOrder> {
  try {
    const intent = await deps.payments.createIntent({
      amount: order.total,
      currency: "usd",
      metadata: { orderId: order.id, orderNumber: order.orderNumber },
      idempotencyKey: `order-${order.id}`,
    });
    await deps.uow.transaction((tx) => tx.orders.update(order.id, { stripePaymentIntentId: intent.id, updatedAt: deps.clock.now() }));
    return { orderId: order.id, orderNumber: order.orderNumber, clientSecret: intent.clientSecret, amount: order.total };
  } catch (error) {
    deps.logger.error("order.payment_intent_failed", { orderId: order.id, error: error instanceof Error ? error.message : String(error) });
    await undoOrder(deps, order, lines, origin);
    throw new DomainError("order.creation_failed", "Order creation failed");
  }
}

/** The order as if it had not been placed: cancelled, its stock back, its lines back in the cart. */
async function undoOrder(deps: CheckoutDeps, order: Order, lines: CartLine[], origin: RequestOrigin): Promise<void> {
  try {
    await deps.uow.transaction(async (tx) => {
      const now = deps.clock.now();
      await tx.orders.update(order.id, { status: "CANCELLED", updatedAt: now });
      await tx.products.returnStock(order.items.map((item) => ({ productId: item.productId, quantity: item.quantity })), now);
      await tx.carts.restoreLines(lines.map(({ product: _, ...line }) => line));
      await recordAudit(tx, deps, {
        userId: order.userId,
        action: "order.status_update",
        entityType: "order",
        entityId: order.id,
        changes: { from: "PENDING", to: "CANCELLED", reason: "the payment intent could not be created" },
        origin,
      });
    });
  } catch (error) {
    // The sweeper still cancels the order and releases its stock when its payment time runs out.
    deps.logger.error("order.undo_failed", { orderId: order.id, error: error instanceof Error ? error.message : String(error) });
  }
}
