import { type CartLine, type CartTotals, cartTotals } from "../../domain/cart.ts";
import type { Deps } from "../ports.ts";

export interface Cart extends CartTotals {
  lines: CartLine[];
}

export async function getCart(deps: Pick<Deps, "carts">, userId: string): Promise<Cart> {
  const lines = await deps.carts.lines(userId);
  return { lines, ...cartTotals(lines) };
}
