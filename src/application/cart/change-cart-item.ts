import type { RequestOrigin } from "../../domain/audit.ts";
import { type CartItem, type CartLine, assertLineQuantity } from "../../domain/cart.ts";
import { DomainError } from "../../domain/errors.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";

type CartDeps = Pick<Deps, "uow" | "ids" | "clock">;

/** The caller's own line: 404 when there is no such line, 403 when it is someone else's. */
async function ownLine(tx: Repositories, userId: string, itemId: string): Promise<CartItem> {
  await tx.carts.lockForChange(userId, null);
  const item = await tx.carts.findById(itemId);
  if (!item) throw new DomainError("cart.item_not_found", "Cart item not found");
  if (item.userId !== userId) throw new DomainError("forbidden", "This cart item belongs to another user");
  return item;
}

export function updateCartItem(deps: CartDeps, userId: string, itemId: string, quantity: number, origin: RequestOrigin): Promise<CartLine> {
  return deps.uow.transaction(async (tx) => {
    const item = await ownLine(tx, userId, itemId);
    const product = await tx.products.findById(item.productId);
    // A line of a product taken off sale can still be removed, but not changed.
    if (!product?.isActive) throw new DomainError("product.not_found", "Product not found");
    assertLineQuantity(product, quantity, item.quantity);
    const updated = (await tx.carts.setQuantity(itemId, quantity, deps.clock.now())) ?? item;
    await recordAudit(tx, deps, {
      userId,
      action: "cart.update",
      entityType: "cart_item",
      entityId: itemId,
      changes: { productId: item.productId, from: item.quantity, to: quantity },
      origin,
    });
    return { ...updated, product };
  });
}

export function removeCartItem(deps: CartDeps, userId: string, itemId: string, origin: RequestOrigin): Promise<void> {
  return deps.uow.transaction(async (tx) => {
    const item = await ownLine(tx, userId, itemId);
    await tx.carts.remove(itemId);
    await recordAudit(tx, deps, {
      userId,
      action: "cart.remove",
      entityType: "cart_item",
      entityId: itemId,
      changes: { productId: item.productId, quantity: item.quantity },
      origin,
    });
  });
}
