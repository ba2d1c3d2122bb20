import { DomainError } from "../../domain/errors.ts";
import { offsetOf } from "../../domain/paging.ts";
import { type Product, adjustmentFits, matchesAdminProductQuery, matchesProductQuery, productComparators } from "../../domain/product.ts";
import type { ProductRepository } from "../../application/ports/catalog.ts";

export function createMemoryProductRepository(products: Map<string, Product>): ProductRepository {
  function assertUnique(candidate: Product) {
    for (const other of products.values()) {
      if (other.id === candidate.id) continue;
      for (const field of ["sku", "slug"] as const) {
        if (other[field] === candidate[field]) {
          throw new DomainError("product.conflict", `A product with this ${field} already exists`, { field });
        }
      }
    }
  }

  return {
    async list(query) {
      const matching = [...products.values()].filter((p) => matchesProductQuery(p, query)).sort(productComparators[query.sort]);
      const start = offsetOf(query);
      return { items: structuredClone(matching.slice(start, start + query.limit)), total: matching.length };
    },
    async findByIdOrSlug(key) {
      const found = products.get(key) ?? [...products.values()].find((p) => p.slug === key);
      return found ? structuredClone(found) : null;
    },
    async findById(id) {
      const found = products.get(id);
      return found ? structuredClone(found) : null;
    },
    async listForAdmin(query) {
      const matching = [...products.values()].filter((p) => matchesAdminProductQuery(p, query)).sort(productComparators.newest);
      const start = offsetOf(query);
      return { items: structuredClone(matching.slice(start, start + query.limit)), total: matching.length };
    },
    async findBySku(sku) {
      const found = [...products.values()].find((p) => p.sku === sku);
      return found ? structuredClone(found) : null;
    },
    async create(product) {
      assertUnique(product);
      products.set(product.id, structuredClone(product));
    },
    async update(id, changes, expectedInventory) {
      const current = products.get(id);
      if (!current || (expectedInventory !== undefined && current.inventory !== expectedInventory)) return null;
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      const next = { ...current, ...defined };
      assertUnique(next);
      products.set(id, structuredClone(next));
      return structuredClone(next);
    },
    async adjustInventory(id, delta, at) {
      const current = products.get(id);
      if (!current || !adjustmentFits(current.inventory, delta)) return null;
      const next = { ...current, inventory: current.inventory + delta, updatedAt: at };
      products.set(id, next);
      return structuredClone(next);
    },
    async takeStock(lines, at) {
      // As PostgreSQL's one statement: each line that fits is taken, each other named.
      return lines.flatMap((line) => {
        const product = products.get(line.productId);
        const available = product?.isActive ? product.inventory : 0;
        if (product && available >= line.quantity) {
          products.set(line.productId, { ...product, inventory: product.inventory - line.quantity, updatedAt: at });
          return [];
        }
        return [{ productId: line.productId, productName: product?.name ?? "", requested: line.quantity, available, onSale: product?.isActive ?? false }];
      });
    },
    async returnStock(lines, at) {
      for (const line of lines) {
        const product = products.get(line.productId);
        if (product) products.set(line.productId, { ...product, inventory: product.inventory + line.quantity, updatedAt: at });
      }
    },
  };
}
