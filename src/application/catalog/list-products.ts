import type { Paged } from "../../domain/paging.ts";
import type { Product, ProductQuery } from "../../domain/product.ts";
import type { Deps } from "../ports/index.ts";

export function listProducts(deps: Pick<Deps, "uow">, query: ProductQuery): Promise<Paged<Product>> {
  return deps.uow.read((db) => db.products.list(query));
}
