import { CART_PRODUCT_FIELDS, type CartItem, type CartProduct, MAX_LINE_QUANTITY } from "../../domain/cart.ts";
import type { AuditEntry } from "../../domain/audit.ts";
import type { Product } from "../../domain/product.ts";
import type { CartRepository } from "../../application/ports/cart.ts";

const byAge = (a: CartItem, b: CartItem) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1);

export function createMemoryCartRepository(items: Map<string, CartItem>, products: Map<string, Product>, audit: Map<string, AuditEntry>): CartRepository {
  const ofUser = (userId: string) => [...items.values()].filter((i) => i.userId === userId);
  const copy = (item: CartItem | undefined) => (item ? structuredClone(item) : null);
  const shown = (product: Product) => Object.fromEntries(CART_PRODUCT_FIELDS.map((f) => [f, product[f]])) as CartProduct;
  const linesOf = (userId: string) =>
    ofUser(userId)
      .sort(byAge)
      .flatMap((item) => {
        const product = products.get(item.productId);
        if (!product) return [];
        return [structuredClone({ ...item, product: shown(product) })];
      });
  return {
    // Memory transactions already run one at a time, so there is nothing to hold.
    async lockForChange(userId, productId) {
      const lines = ofUser(userId);
      const line = lines.find((i) => i.productId === productId);
      const product = productId === null ? undefined : products.get(productId);
      const hidden = lines.filter((i) => !products.get(i.productId)?.isActive).sort(byAge);
      return {
        lineCount: lines.length - hidden.length,
        offSale: hidden.map((i) => i.id),
        quantityInCart: line?.quantity ?? 0,
        product: product ? structuredClone(shown(product)) : null,
      };
    },
    async lines(userId) {
      return linesOf(userId);
    },
    async findById(id) {
      return copy(items.get(id));
    },
    async add({ id, userId, productId, quantity, at }, entry) {
      const existing = ofUser(userId).find((i) => i.productId === productId);
      const item = existing
        ? { ...existing, quantity: existing.quantity + quantity, updatedAt: at }
        : { id, userId, productId, quantity, createdAt: at, updatedAt: at };
      items.set(item.id, item);
      audit.set(entry.id, structuredClone({ ...entry, entityId: item.id, changes: { ...entry.changes, quantity: item.quantity } }));
      return structuredClone(item);
    },
    async setQuantity(id, quantity, at) {
      const item = items.get(id);
      if (!item) return null;
      const updated = { ...item, quantity, updatedAt: at };
      items.set(id, updated);
      return structuredClone(updated);
    },
    async remove(id) {
      return items.delete(id);
    },
    async takeLines(userId, ids) {
      const wanted = new Set(ids);
      const taken = linesOf(userId).filter((line) => wanted.has(line.id));
      for (const line of taken) items.delete(line.id);
      return taken;
    },
    async restoreLines(lines) {
      for (const line of lines) {
        const current = ofUser(line.userId).find((i) => i.productId === line.productId);
        items.set(
          current?.id ?? line.id,
          current ? { ...current, quantity: Math.min(MAX_LINE_QUANTITY, current.quantity + line.quantity) } : structuredClone(line),
        );
      }
    },
  };
}
