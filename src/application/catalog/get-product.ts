import { DomainError } from "../../domain/errors.ts";
import type { Product } from "../../domain/product.ts";
import type { Deps } from "../ports/index.ts";

/** The public view of one product: by id or slug, and only while it is on sale. */
export async function getProduct(deps: Pick<Deps, "uow">, idOrSlug: string): Promise<Product> {
  const product = await deps.uow.read((db) => db.products.findByIdOrSlug(idOrSlug));
  if (!product?.isActive) throw new DomainError("product.not_found", "Product not found");
  return product;
}
