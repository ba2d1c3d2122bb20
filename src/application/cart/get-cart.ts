import { type CartLine, type CartView, viewCart } from "../../domain/cart.ts";
import type { Deps } from "../ports/index.ts";

export type Cart = CartView<CartLine>;

export async function getCart(deps: Pick<Deps, "uow">, userId: string): Promise<Cart> {
  return viewCart(await deps.uow.read((db) => db.carts.lines(userId)));
}
