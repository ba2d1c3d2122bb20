import type { RequestOrigin } from "../../domain/audit.ts";
import { type CartItem, linesToPutBack } from "../../domain/cart.ts";
import { type Order, itemQuantities } from "../../domain/order.ts";
import { awaitsFirstIntent } from "../../domain/payment.ts";
import { removeLinesGivingWay } from "../cart/give-way.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { applyToOrder, cancellation } from "./apply-to-order.ts";

/** Why an order is undone, and who for: the audit entries' words. */
export interface Undoing {
  reason: string;
  userId: string | null;
  origin: RequestOrigin;
  /** The processor's refusal, when it gave one. */
  refusal?: unknown;
  /** The cart lines the order was made of, when they are at hand: one put back as a line of its own keeps its id and its place. */
  lines?: readonly CartItem[];
}

/**
 * An order that could not go ahead (its payment intent could not be made), undone in the caller's
 * transaction, the order locked by it, as if it had not been placed (decisions §15): cancelled with
 * its stock back; its goods back in the cart as the cart is now, under the cart's lock and within
 * its limits, as an add would put them (linesToPutBack: a product the cart holds gains the
 * quantity, up to MAX_LINE_QUANTITY; another gets a line of its own while there is room, the oldest
 * lines off sale giving way, each audited; what does not fit is left out); its Idempotency-Key
 * freed, so a retry runs again; the cancel's audit entry says what went back and what did not.
 * Only an order still waiting for its first intent is undone: one that ended meanwhile (staff, the
 * sweeper, or housekeeping undoing it while checkout's call was slow, its lines put back then) or
 * got its intent after all was settled by whoever moved it. False then, nothing done.
 */
export async function undoPlacedOrder(tx: Repositories, deps: Pick<Deps, "ids" | "clock">, order: Order, why: Undoing): Promise<boolean> {
  if (order.status !== "PENDING" || !awaitsFirstIntent(order)) return false;
  await tx.carts.lockForChange(order.userId, null);
  const cart = (await tx.carts.lines(order.userId)).map((line) => ({ ...line, onSale: line.product.isActive }));
  const { putBack, leftOut, givingWay } = linesToPutBack(cart, itemQuantities(order));
  // The order's lines are put back as an add would put them: lines off sale make room.
  await removeLinesGivingWay(
    tx,
    deps,
    givingWay.map((id) => cart.find((line) => line.id === id)!),
    why,
  );
  const now = deps.clock.now();
  const was = new Map(why.lines?.map((line) => [line.productId, line]));
  await tx.carts.restoreLines(
    putBack.map((goods) => {
      const line = was.get(goods.productId);
      return { ...goods, id: line?.id ?? deps.ids.next(), userId: order.userId, createdAt: line?.createdAt ?? now, updatedAt: line?.updatedAt ?? now };
    }),
  );
  await tx.idempotency.forgetOrder(order.id);
  await applyToOrder(
    tx,
    deps,
    order,
    cancellation(order, {
      action: "order.status_update",
      userId: why.userId,
      origin: why.origin,
      changes: {
        from: order.status,
        to: "CANCELLED",
        reason: why.reason,
        ...(why.refusal === undefined ? {} : { refusal: why.refusal }),
        linesPutBack: putBack,
        linesLeftOut: leftOut,
      },
    }),
  );
  return true;
}
