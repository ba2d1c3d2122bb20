import type { Paged, PageRequest } from "../../domain/paging.ts";
import type { Actor } from "../../domain/permissions.ts";
import type { Product } from "../../domain/product.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

export interface AdminProductFilter extends PageRequest {
  /** Part of the name or the SKU, in any case. */
  q?: string;
  isActive?: boolean;
  /** Only the products at or under the shop's LOW_STOCK_THRESHOLD. */
  lowStock?: true;
}

/** The back office's product list (decisions §12): every product, on sale or not, newest first. */
export async function listAdminProducts(deps: Pick<Deps, "uow">, actor: Actor, filter: AdminProductFilter, lowStockThreshold: number): Promise<Paged<Product>> {
  requirePermission(actor, "products:read");
  const { lowStock, ...rest } = filter;
  return deps.uow.read((db) => db.products.listForAdmin({ ...rest, maxInventory: lowStock ? lowStockThreshold : undefined }));
}
