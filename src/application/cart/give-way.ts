import type { RequestOrigin } from "../../domain/audit.ts";
import type { CartItem } from "../../domain/cart.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";

/**
 * Lines the shopper could not see (their products off sale) taken out of the cart to make room for
 * one they can (makeRoomForLine, linesToPutBack), each audited with why; one gone already is passed over.
 */
export async function removeLinesGivingWay(
  tx: Pick<Repositories, "carts" | "audit">,
  deps: Pick<Deps, "ids" | "clock">,
  lines: readonly Pick<CartItem, "id" | "productId" | "quantity">[],
  by: { userId: string | null; origin: RequestOrigin },
): Promise<void> {
  for (const line of lines) {
    if (!(await tx.carts.remove(line.id))) continue;
    const changes = { productId: line.productId, quantity: line.quantity, reason: "off_sale_made_room" };
    await recordAudit(tx, deps, { userId: by.userId, action: "cart.remove", entityType: "cart_item", entityId: line.id, changes, origin: by.origin });
  }
}
