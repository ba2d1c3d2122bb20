import { DomainError } from "./errors.ts";
import type { Cents } from "./money.ts";
import { subtotalOf } from "./pricing.ts";
import type { Product } from "./product.ts";

export const MAX_LINE_QUANTITY = 99;
export const MAX_CART_LINES = 50;

export interface CartItem {
  id: string;
  userId: string;
  productId: string;
  quantity: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a cart needs of a product: enough to show the line, price it, check its stock and order it. */
export type CartProduct = Pick<Product, "id" | "name" | "slug" | "sku" | "price" | "compareAtPrice" | "featuredImage" | "heatLevel" | "inventory" | "isActive">;
export const CART_PRODUCT_FIELDS = [
  "id",
  "name",
  "slug",
  "sku",
  "price",
  "compareAtPrice",
  "featuredImage",
  "heatLevel",
  "inventory",
  "isActive",
] as const satisfies readonly (keyof CartProduct)[];

export interface CartLine extends CartItem {
  product: CartProduct;
}

export interface CartTotals {
  /** Distinct lines. */
  itemCount: number;
  totalQuantity: number;
  subtotal: Cents;
}

export function cartTotals(lines: readonly { quantity: number; product: Pick<Product, "price"> }[]): CartTotals {
  return {
    itemCount: lines.length,
    totalQuantity: lines.reduce((sum, l) => sum + l.quantity, 0),
    subtotal: subtotalOf(lines.map((l) => ({ unitPrice: l.product.price, quantity: l.quantity }))),
  };
}

export interface CartView<L> extends CartTotals {
  lines: L[];
}

/**
 * The cart as the shopper sees it. A line whose product was taken off sale is left out, and out of
 * the totals, while it is off sale; the line itself is kept (it may still be removed) and shows
 * again if the product returns. It keeps its place among the MAX_CART_LINES until an add needs
 * the place (makeRoomForLine).
 */
export function viewCart<L extends { quantity: number; product: Pick<Product, "price" | "isActive"> }>(lines: readonly L[]): CartView<L> {
  const onSale = lines.filter((line) => line.product.isActive);
  return { lines: onSale, ...cartTotals(onSale) };
}

/**
 * The quantity a line may hold: at most 99, and no more than the product has in stock. `inCart`
 * is what the line already held before this change (for an add).
 */
export function assertLineQuantity(product: Pick<Product, "id" | "name" | "inventory">, quantity: number, inCart = 0): void {
  if (quantity > MAX_LINE_QUANTITY) {
    throw new DomainError("cart.quantity_limit", `A cart line can hold at most ${MAX_LINE_QUANTITY} of a product`, {
      productId: product.id,
      requested: quantity,
      inCart,
      maximum: MAX_LINE_QUANTITY,
    });
  }
  if (quantity > product.inventory) {
    throw new DomainError("inventory.insufficient", "Insufficient inventory", {
      productId: product.id,
      productName: product.name,
      requested: quantity,
      inCart,
      available: product.inventory,
    });
  }
}

export function assertRoomForLine(lineCount: number): void {
  if (lineCount >= MAX_CART_LINES) {
    throw new DomainError("cart.too_many_lines", `A cart can hold at most ${MAX_CART_LINES} different products`, {
      maximum: MAX_CART_LINES,
    });
  }
}

/**
 * Room for a new line (decisions §4, §7). A line off sale is not in the shopper's cart, so only the
 * lines on sale count against MAX_CART_LINES; but the lines kept all together never pass it, so
 * when they fill it the oldest off sale give way (the shopper, who cannot see them, could not
 * remove them). `offSale`: the ids of the lines off sale, oldest first. The ids to drop.
 */
export function makeRoomForLine(onSale: number, offSale: readonly string[]): string[] {
  assertRoomForLine(onSale);
  return offSale.slice(0, Math.max(0, onSale + offSale.length + 1 - MAX_CART_LINES));
}

export interface Goods {
  productId: string;
  quantity: number;
}

/** A line of the cart as a put-back needs it: a line off sale (its product) is not the shopper's to see. */
export interface HeldLine extends Goods {
  id: string;
  onSale: boolean;
}

/**
 * What of an order that could not go ahead goes back into the cart as it is now (decisions §15),
 * within the cart's limits, as an add would be: a product the cart already holds gains the
 * quantity, up to MAX_LINE_QUANTITY; one it does not hold gets a line of its own while the lines on
 * sale leave room (MAX_CART_LINES), the oldest lines off sale giving way when the lines kept all
 * together would pass it (makeRoomForLine; `givingWay`: their ids), but not one the order adds to.
 * What does not fit is left out,
 * and said why, for the audit. `cart`: oldest first.
 */
export function linesToPutBack(
  cart: readonly HeldLine[],
  goods: readonly Goods[],
): { putBack: Goods[]; leftOut: Array<Goods & { reason: "line_full" | "cart_full" }>; givingWay: string[] } {
  const held = new Map(cart.map((line) => [line.productId, line.quantity]));
  // The lines off sale that may still give way, oldest first.
  let offSale = cart.filter((line) => !line.onSale);
  let onSale = cart.length - offSale.length;
  const putBack: Goods[] = [];
  const leftOut: Array<Goods & { reason: "line_full" | "cart_full" }> = [];
  const givingWay: string[] = [];
  for (const { productId, quantity } of goods) {
    const inCart = held.get(productId);
    if (inCart === undefined) {
      if (onSale >= MAX_CART_LINES) {
        leftOut.push({ productId, quantity, reason: "cart_full" });
        continue;
      }
      const dropped = offSale.slice(
        0,
        makeRoomForLine(
          onSale,
          offSale.map((line) => line.id),
        ).length,
      );
      for (const line of dropped) held.delete(line.productId);
      givingWay.push(...dropped.map((line) => line.id));
      offSale = offSale.slice(dropped.length);
      onSale += 1;
    } else if (offSale.some((line) => line.productId === productId)) {
      // A line off sale that the order adds to is kept: it no longer gives way, and holds its place.
      offSale = offSale.filter((line) => line.productId !== productId);
      onSale += 1;
    }
    const fits = Math.min(quantity, MAX_LINE_QUANTITY - (inCart ?? 0));
    if (fits > 0) putBack.push({ productId, quantity: fits });
    held.set(productId, (inCart ?? 0) + fits);
    if (fits < quantity) leftOut.push({ productId, quantity: quantity - fits, reason: "line_full" });
  }
  return { putBack, leftOut, givingWay };
}
