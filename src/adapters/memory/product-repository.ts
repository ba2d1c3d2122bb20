import { offsetOf } from "../../domain/paging.ts";
import { type Product, matchesProductQuery, productComparators } from "../../domain/product.ts";
import type { ProductRepository } from "../../application/ports.ts";

export function createMemoryProductRepository(products: Map<string, Product>): ProductRepository {
  return {
    async list(query) {
      const matching = [...products.values()]
        .filter((p) => matchesProductQuery(p, query))
        .sort(productComparators[query.sort]);
      const start = offsetOf(query);
      return { items: structuredClone(matching.slice(start, start + query.limit)), total: matching.length };
    },
    async findByIdOrSlug(key) {
      const found = products.get(key) ?? [...products.values()].find((p) => p.slug === key);
      return found ? structuredClone(found) : null;
    },
    async create(product) {
      products.set(product.id, structuredClone(product));
    },
  };
}
