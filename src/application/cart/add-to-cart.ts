import type { RequestOrigin } from "../../domain/audit.ts";
import { type CartItem, type CartLine, assertLineQuantity, makeRoomForLine } from "../../domain/cart.ts";
import { DomainError } from "../../domain/errors.ts";
import { auditEntry } from "../audit.ts";
import { removeLinesGivingWay } from "./give-way.ts";
import type { Deps } from "../ports/index.ts";

/**
 * Adds a quantity of a product to the user's cart, merging into the line the product already has.
 * The cart is locked for the transaction, so two adds at once cannot both pass the stock and size
 * checks on the same old numbers; the upsert keeps one line per product whatever happens.
 */
export function addToCart(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  userId: string,
  input: { productId: string; quantity: number },
  origin: RequestOrigin,
): Promise<CartLine> {
  return deps.uow.transaction(async (tx) => {
    const cart = await tx.carts.lockForChange(userId, input.productId);
    const product = cart.product;
    if (!product?.isActive) throw new DomainError("product.not_found", "Product not found");
    const inCart = cart.quantityInCart;
    const givingWay = inCart === 0 ? makeRoomForLine(cart.lineCount, cart.offSale) : [];
    assertLineQuantity(product, inCart + input.quantity, inCart);
    const lines: CartItem[] = [];
    for (const itemId of givingWay) {
      const line = await tx.carts.findById(itemId);
      if (line) lines.push(line);
    }
    await removeLinesGivingWay(tx, deps, lines, { userId, origin });

    // The entry names the line as the upsert leaves it (a checkout not yet committed may be taking
    // the line seen above): the statement fills in its id and quantity.
    const { entityId: _, ...audit } = auditEntry(deps, {
      userId,
      action: "cart.add",
      entityType: "cart_item",
      entityId: null,
      changes: { productId: product.id, added: input.quantity },
      origin,
    });
    const item = await tx.carts.add({ id: deps.ids.next(), userId, productId: product.id, quantity: input.quantity, at: deps.clock.now() }, audit);
    return { ...item, product };
  });
}
