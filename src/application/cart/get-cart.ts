import { type CartLine, type CartView, viewCart } from "../../domain/cart.ts";
import type { Deps } from "../ports.ts";

export type Cart = CartView<CartLine>;

export async function getCart(deps: Pick<Deps, "carts">, userId: string): Promise<Cart> {
  return viewCart(await deps.carts.lines(userId));
}
