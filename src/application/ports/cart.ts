import type { CartItem, CartLine } from "../../domain/cart.ts";

export interface CartAddition {
  /** Used only when the line is new. */
  id: string;
  userId: string;
  productId: string;
  quantity: number;
  at: Date;
}

export interface CartSummary {
  lineCount: number;
  /** The quantity of the asked-for product already in the cart; 0 when it has no line. */
  quantityInCart: number;
}

export interface CartReader {
  /** The user's lines with their products, oldest first, including products taken off sale. */
  lines(userId: string): Promise<CartLine[]>;
  findById(id: string): Promise<CartItem | null>;
}

export interface CartRepository extends CartReader {
  /**
   * Holds the user's cart until the transaction ends, so that the checks and the write after them
   * see the same cart, and then says what it holds.
   */
  lockForChange(userId: string, productId: string | null): Promise<CartSummary>;
  /** Adds to the user's line for the product, creating it when missing: one atomic upsert. */
  add(addition: CartAddition): Promise<CartItem>;
  setQuantity(id: string, quantity: number, at: Date): Promise<CartItem | null>;
  remove(id: string): Promise<boolean>;
  /**
   * Locks the user's lines with these ids (every line of the user's when null) until the
   * transaction ends, and returns them with their products, oldest first. Lines of other users,
   * and lines gone meanwhile, are not returned.
   */
  lockLines(userId: string, ids: readonly string[] | null): Promise<CartLine[]>;
  removeLines(ids: readonly string[]): Promise<void>;
  /** Puts lines back as they were (an order that could not go ahead); one the user has added to since gains their quantity, up to 99. */
  restoreLines(lines: readonly CartItem[]): Promise<void>;
}
