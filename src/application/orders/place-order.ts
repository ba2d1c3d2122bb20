import { type Address, addressProblems, normalizeAddress } from "../../domain/address.ts";
import type { RequestOrigin } from "../../domain/audit.ts";
import type { CartLine } from "../../domain/cart.ts";
import { DomainError, unauthenticated, failureOf } from "../../domain/errors.ts";
import { type Cents, lineTotal, toDollars } from "../../domain/money.ts";
import { MAX_ORDER_TOTAL, type Order, newOrder } from "../../domain/order.ts";
import { orderNumber } from "../../domain/order-number.ts";
import { priceOrder } from "../../domain/pricing.ts";
import { auditEntry } from "../audit.ts";
import type { HeldKey } from "../ports/idempotency.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { answerPlacedOrder } from "./answer-placed-order.ts";
import { type PlacedOrder, attachPaymentIntent } from "./attach-payment-intent.ts";
import type { OrderSettings } from "./settings.ts";

export type AddressInput = Omit<Address, "address2" | "country"> & { address2?: string | null; country?: string };

export interface OrderRequest {
  /** The cart lines to order; null: every line the shopper sees (POST /api/cart/checkout). */
  cartItemIds: readonly string[] | null;
  shippingAddress: AddressInput;
  billingAddress?: AddressInput | null;
  notes?: string | null;
}

export type CheckoutDeps = Pick<Deps, "uow" | "tax" | "payments" | "ids" | "clock" | "random" | "logger">;
export type CheckoutSettings = Pick<OrderSettings, "numberPrefix" | "maxUnpaidOrders">;

/** Attempts at a free order number before giving up (36^4 numbers a day per prefix: a collision is rare, two in a row rarer). */
const ORDER_NUMBER_ATTEMPTS = 10;
/** Times the lines are priced again when the cart changed between pricing and locking. */
const PRICING_ATTEMPTS = 2;

/**
 * Turns cart lines into an order (decisions §4), step by step: the addresses are checked, the
 * lines priced, tax asked for before anything is written (a failure changes nothing); then one
 * transaction makes sure the customer has room for another unpaid order, takes the lines out of the cart, writes the order
 * with its items and audit entry, and takes the stock (never below zero) last; after commit the payment intent is created, and if that
 * fails the order is undone (cancelled, stock back, lines back) and the caller gets a 500. Under an
 * Idempotency-Key, the transaction records the order against the key (decisions §15), and a
 * replay of a checkout that made an order answers that order instead of running again.
 */
export async function placeOrder(
  deps: CheckoutDeps,
  settings: CheckoutSettings,
  userId: string,
  request: OrderRequest,
  origin: RequestOrigin,
  key: HeldKey | null = null,
): Promise<PlacedOrder> {
  if (key?.orderId) return answerPlacedOrder(deps, userId, key.orderId);
  const shippingAddress = checkedAddress(request.shippingAddress, "shippingAddress");
  const billingAddress = request.billingAddress ? checkedAddress(request.billingAddress, "billingAddress") : shippingAddress;
  const ids = request.cartItemIds ? [...new Set(request.cartItemIds)] : null;
  const notes = request.notes?.trim() || null;

  for (let attempt = 1; ; attempt++) {
    const priced = orderable(await deps.uow.read((db) => db.carts.lines(userId)), ids);
    const amounts = priced.map((line) => ({ unitPrice: line.product.price, quantity: line.quantity }));
    refuseOverLimit(priceOrder(amounts, shippingAddress, 0).total);
    const tax = await taxFor(deps, priced, shippingAddress);
    refuseOverLimit(priceOrder(amounts, shippingAddress, tax).total);
    try {
      const order = await deps.uow.transaction(async (tx) => {
        await refuseOverUnpaidLimit(tx, userId, settings.maxUnpaidOrders);
        const lines = await takeSameLines(tx, userId, ids ?? priced.map((line) => line.id), priced);
        const placed = await writeOrder(tx, deps, settings.numberPrefix, { userId, lines, shippingAddress, billingAddress, tax, notes }, origin);
        if (key) await tx.idempotency.recordOrder(userId, key.key, key.claimedAt, placed.id);
        // Last: the products' rows stay locked from here to the commit, and every checkout of a
        // popular product queues on its row, so the less a checkout does while holding it, the more
        // checkouts of it a second (a shortfall still undoes everything above).
        await takeStock(tx, deps, lines);
        return placed;
      });
      return await attachPaymentIntent(deps, order, priced, origin);
    } catch (error) {
      // Tax was asked for the lines as they were priced; changed since, they are priced again.
      if (error instanceof DomainError && error.code === "cart.changed" && attempt < PRICING_ATTEMPTS) continue;
      throw error;
    }
  }
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
  if (wanted.length !== ids.length) throw itemsNotFound(ids.filter((id) => !wanted.some((line) => line.id === id)));
  return wanted;
}

const itemsNotFound = (cartItemIds: string[]) => new DomainError("cart.items_not_found", "Cart items not found", { cartItemIds });

/** An order no processor would charge is refused before anything is asked or written. */
function refuseOverLimit(total: Cents): void {
  if (total > MAX_ORDER_TOTAL) {
    const usd = toDollars(MAX_ORDER_TOTAL).toLocaleString("en-US", { style: "currency", currency: "USD" });
    throw new DomainError("order.too_large", `An order may total at most ${usd}`, { total: toDollars(total), maximum: toDollars(MAX_ORDER_TOTAL) });
  }
}

/** Decisions §3: tax from the processor's tax service; a failure stops the order, and no tax is ever guessed. */
async function taxFor(deps: Pick<Deps, "tax" | "logger">, lines: CartLine[], shippingAddress: Address): Promise<Cents> {
  try {
    const result = await deps.tax.calculate({
      lines: lines.map((line) => ({ reference: line.productId, amount: lineTotal(line.product.price, line.quantity), quantity: line.quantity })),
      shippingAddress,
      currency: "usd",
    });
    return result.tax;
  } catch (error) {
    deps.logger.error("order.tax_failed", failureOf(error));
    throw new DomainError("tax.unavailable", "Tax could not be calculated; no order was made");
  }
}

/**
 * Decisions §15: unpaid orders hold stock, so a customer holds only so many (a declined payment is
 * still unpaid). Counted while the customer is held, so checkouts at once cannot each count the
 * same orders and all get through.
 */
async function refuseOverUnpaidLimit(tx: Repositories, userId: string, limit: number): Promise<void> {
  if (!(await tx.users.holdForCheckout(userId))) throw unauthenticated();
  // As many as the limit: enough to know it is reached, and to name them, however many a customer holds.
  const unpaid = await tx.orders.unpaidOf(userId, limit);
  if (unpaid.length >= limit) {
    throw new DomainError("order.too_many_unpaid", "Pay or cancel your unpaid orders first", { limit, unpaidOrders: unpaid });
  }
}

/**
 * Takes the lines out of the cart and checks they are still the ones priced: gone (another checkout
 * took them) is "not found"; a changed quantity or price is a changed cart, since tax was asked for
 * the old one. Either way the transaction is undone, and the lines with it.
 */
async function takeSameLines(tx: Repositories, userId: string, ids: string[], priced: CartLine[]): Promise<CartLine[]> {
  const taken = (await tx.carts.takeLines(userId, ids)).filter((line) => line.product.isActive);
  if (taken.length !== priced.length) throw itemsNotFound(priced.filter((p) => !taken.some((l) => l.id === p.id)).map((p) => p.id));
  const same = priced.every((p) => taken.some((l) => l.id === p.id && l.quantity === p.quantity && l.product.price === p.product.price));
  if (!same) throw new DomainError("cart.changed", "Your cart changed while the order was being placed; please try again");
  return taken;
}

/** Stock never goes below zero; a product taken off sale meanwhile is, as decisions §4 says, no longer in the cart. */
async function takeStock(tx: Repositories, deps: Pick<Deps, "clock">, lines: CartLine[]): Promise<void> {
  const shortfalls = await tx.products.takeStock(
    lines.map((line) => ({ productId: line.productId, quantity: line.quantity })),
    deps.clock.now(),
  );
  const offSale = shortfalls.filter((s) => !s.onSale).map((s) => s.productId);
  if (offSale.length) throw itemsNotFound(lines.filter((line) => offSale.includes(line.productId)).map((line) => line.id));
  const short = shortfalls.map(({ onSale: _, ...shortfall }) => shortfall);
  const [first] = short;
  if (first) throw new DomainError("inventory.insufficient", "Insufficient inventory", { ...first, shortfalls: short });
}

/** The order with its items, and its audit entry in the same statement, under the first free order number. */
async function writeOrder(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock" | "random">,
  prefix: string,
  fields: { userId: string; lines: CartLine[]; shippingAddress: Address; billingAddress: Address; tax: Cents; notes: string | null },
  origin: RequestOrigin,
): Promise<Order> {
  const at = deps.clock.now();
  const id = deps.ids.next();
  const itemIds = fields.lines.map(() => deps.ids.next());
  for (let attempt = 0; attempt < ORDER_NUMBER_ATTEMPTS; attempt++) {
    const order = newOrder({ ...fields, id, itemIds, orderNumber: orderNumber(prefix, at, (n) => deps.random.below(n)), at });
    const audit = auditEntry(deps, {
      userId: fields.userId,
      action: "order.create",
      entityType: "order",
      entityId: order.id,
      changes: { orderNumber: order.orderNumber, total: order.total, items: order.items.map((i) => ({ productId: i.productId, quantity: i.quantity })) },
      origin,
    });
    if (await tx.orders.create(order, audit)) return order;
  }
  throw new Error(`no free order number after ${ORDER_NUMBER_ATTEMPTS} attempts`);
}
