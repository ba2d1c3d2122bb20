import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import type { Product } from "../../domain/product.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { ProductChanges } from "../ports/catalog.ts";
import type { Deps } from "../ports/index.ts";

type CatalogDeps = Pick<Deps, "uow" | "ids" | "clock">;
export type NewProduct = Omit<Product, "id" | "createdAt" | "updatedAt">;
export type ProductPatch = Partial<NewProduct>;

export async function createProduct(deps: CatalogDeps, actor: Actor, input: NewProduct, origin: RequestOrigin): Promise<Product> {
  requirePermission(actor, "products:write");
  const now = deps.clock.now();
  const product: Product = { ...input, id: deps.ids.next(), createdAt: now, updatedAt: now };
  await deps.uow.transaction(async (tx) => {
    await tx.products.create(product);
    await recordAudit(tx, deps, { userId: actor.userId, action: "product.create", entityType: "product", entityId: product.id, changes: { ...input }, origin });
  });
  return product;
}

async function applyChanges(
  deps: CatalogDeps,
  actor: Actor,
  id: string,
  changes: ProductChanges,
  action: "product.update" | "product.delete",
  origin: RequestOrigin,
): Promise<Product> {
  requirePermission(actor, "products:write");
  return deps.uow.transaction(async (tx) => {
    const updated = await tx.products.update(id, changes);
    if (!updated) throw new DomainError("product.not_found", "Product not found");
    const { updatedAt: _, ...recorded } = changes;
    await recordAudit(tx, deps, { userId: actor.userId, action, entityType: "product", entityId: id, changes: recorded, origin });
    return updated;
  });
}

export function updateProduct(deps: CatalogDeps, actor: Actor, id: string, patch: ProductPatch, origin: RequestOrigin) {
  return applyChanges(deps, actor, id, { ...patch, updatedAt: deps.clock.now() }, "product.update", origin);
}

/** Soft delete: the product leaves the catalog, while order items keep their copied data. */
export function deleteProduct(deps: CatalogDeps, actor: Actor, id: string, origin: RequestOrigin) {
  return applyChanges(deps, actor, id, { isActive: false, updatedAt: deps.clock.now() }, "product.delete", origin);
}
