import type { Paged } from "../../domain/paging.ts";
import type { Product, ProductQuery } from "../../domain/product.ts";
import type { Deps } from "../ports.ts";

export function listProducts(deps: Pick<Deps, "products">, query: ProductQuery): Promise<Paged<Product>> {
  return deps.products.list(query);
}
