import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type Product, slugify } from "../../domain/product.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { ProductChanges } from "../ports/catalog.ts";
import type { Deps } from "../ports/index.ts";

type CatalogDeps = Pick<Deps, "uow" | "ids" | "clock">;
type ProductFields = Omit<Product, "id" | "createdAt" | "updatedAt">;
/** A new product; the slug defaults to one made from the name, the images to the featured image alone. */
export type NewProduct = Omit<ProductFields, "slug" | "images"> & { slug?: string; images?: string[] };
export type ProductPatch = Partial<ProductFields>;

export async function createProduct(deps: CatalogDeps, actor: Actor, input: NewProduct, origin: RequestOrigin): Promise<Product> {
  requirePermission(actor, "products:write");
  const slug = input.slug ?? slugify(input.name);
  if (slug === "") {
    throw new DomainError("invalid_input", "Invalid request", {
      issues: [{ path: "slug", message: "is required: the name has no letters or digits to derive it from" }],
    });
  }
  const now = deps.clock.now();
  const product: Product = { ...input, slug, images: input.images ?? [input.featuredImage], id: deps.ids.next(), createdAt: now, updatedAt: now };
  await deps.uow.transaction(async (tx) => {
    await tx.products.create(product);
    await recordAudit(tx, deps, {
      userId: actor.userId,
      action: "product.create",
      entityType: "product",
      entityId: product.id,
      changes: { ...input, slug: product.slug, images: product.images },
      origin,
    });
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
