import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Repositories } from "../../src/application/ports/index.ts";
import { type Order, newOrder } from "../../src/domain/order.ts";
import type { Product } from "../../src/domain/product.ts";

const texas = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };

/** An order of the user's for the given products and quantities, shipped to Texas ($6.99 under $50), with the tax given. */
export function anOrderOf(userId: string, lines: ReadonlyArray<readonly [Product, number]>, tax: number, at: Date): Order {
  const id = cuid2Ids.next();
  return newOrder({
    id,
    orderNumber: `SF-${at.toISOString().slice(0, 10).replaceAll("-", "")}-${id.slice(-4).toUpperCase()}`,
    userId,
    itemIds: lines.map(() => cuid2Ids.next()),
    lines: lines.map(([product, quantity]) => ({ productId: product.id, quantity, product })),
    shippingAddress: texas,
    billingAddress: texas,
    tax,
    notes: null,
    at,
  });
}

/**
 * Writes the order as one paid at `paidAt` (null: never paid) and, given `refundedAt`, refunded
 * then: through the repositories' own update, as the payment's moves write them.
 */
export async function recordSale(repos: Repositories, order: Order, paidAt: Date | null, refundedAt: Date | null = null): Promise<void> {
  await repos.orders.create(order);
  const paymentStatus = refundedAt ? "REFUNDED" : paidAt ? "PAID" : "PENDING";
  const status = refundedAt ? "REFUNDED" : paidAt ? "CONFIRMED" : "PENDING";
  await repos.orders.update(order.id, { status, paymentStatus, paidAt, refundedAt, updatedAt: refundedAt ?? paidAt ?? order.createdAt });
}
