import type { AuditEntry } from "../../domain/audit.ts";
import type { CartItem, CartLine, CartProduct } from "../../domain/cart.ts";

export interface CartAddition {
  /** Used only when the line is new. */
  id: string;
  userId: string;
  productId: string;
  quantity: number;
  at: Date;
}

export interface CartSummary {
  /** The lines in the cart as the shopper sees it: their products on sale. */
  lineCount: number;
  /** The ids of the lines kept but not shown (their products are off sale), oldest first. */
  offSale: string[];
  /** The quantity of the asked-for product already in the cart; 0 when it has no line. */
  quantityInCart: number;
  /** The asked-for product as the cart shows it; null when there is no such product, or none was asked for. */
  product: CartProduct | null;
}

export interface CartReader {
  /** The user's lines with their products, oldest first, including products taken off sale. */
  lines(userId: string): Promise<CartLine[]>;
  findById(id: string): Promise<CartItem | null>;
}

export interface CartRepository extends CartReader {
  /**
   * Holds the user's cart until the transaction ends, so that the checks and the write after them
   * see the same cart, and then says what it holds, and what it holds of the product (read with it).
   */
  lockForChange(userId: string, productId: string | null): Promise<CartSummary>;
  /**
   * Adds to the user's line for the product, creating it when missing: one atomic upsert, with its
   * audit entry in the same statement. The entry names the line as the upsert leaves it: its id,
   * and its quantity after the add as `changes.quantity` (a line another request made or took
   * meanwhile included).
   */
  add(addition: CartAddition, audit: Omit<AuditEntry, "entityId">): Promise<CartItem>;
  setQuantity(id: string, quantity: number, at: Date): Promise<CartItem | null>;
  remove(id: string): Promise<boolean>;
  /**
   * Takes the user's lines with these ids out of the cart and returns them as they were, with their
   * products, oldest first: one statement (a checkout's). Lines of other users, and lines gone
   * meanwhile (another checkout took them), are not taken. Undone with the transaction.
   */
  takeLines(userId: string, ids: readonly string[]): Promise<CartLine[]>;
  /** Puts lines back as they were (an order that could not go ahead); one the user has added to since gains their quantity, up to 99. */
  restoreLines(lines: readonly CartItem[]): Promise<void>;
}
