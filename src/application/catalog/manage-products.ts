import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type Product, slugify } from "../../domain/product.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { ProductChanges } from "../ports/catalog.ts";
import type { Deps, Repositories } from "../ports/index.ts";

type CatalogDeps = Pick<Deps, "uow" | "ids" | "clock">;
type ProductFields = Omit<Product, "id" | "createdAt" | "updatedAt">;
/** A new product; the slug defaults to one made from the name, the images to the featured image alone. */
export type NewProduct = Omit<ProductFields, "slug" | "images"> & { slug?: string; images?: string[] };
/**
 * Fields to change. `inventory` only with `expectedInventory`, the stock as the caller last read it
 * (decisions §12): a restock typed over a sale in progress must not wipe the sale out.
 */
export type ProductPatch = Partial<ProductFields> & { expectedInventory?: number };

export async function createProduct(deps: CatalogDeps, actor: Actor, input: NewProduct, origin: RequestOrigin): Promise<Product> {
  requirePermission(actor, "products:write");
  const slug = input.slug ?? slugify(input.name);
  if (slug === "") {
    throw new DomainError("invalid_input", "Invalid request", {
      issues: [{ path: "slug", message: "is required: the name has no Latin letters or digits to derive it from" }],
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
  expectedInventory?: number,
): Promise<Product> {
  requirePermission(actor, "products:write");
  return deps.uow.transaction(async (tx) => {
    const updated = await tx.products.update(id, changes, expectedInventory);
    if (!updated) throw await refusal(tx, id, expectedInventory);
    const { updatedAt: _, ...recorded } = changes;
    const expected = expectedInventory === undefined ? {} : { expectedInventory };
    await recordAudit(tx, deps, { userId: actor.userId, action, entityType: "product", entityId: id, changes: { ...recorded, ...expected }, origin });
    return updated;
  });
}

/** Why the update changed nothing: no such product, or (with an expected inventory) stock that moved meanwhile. */
async function refusal(tx: Repositories, id: string, expectedInventory: number | undefined): Promise<DomainError> {
  const current = expectedInventory === undefined ? null : await tx.products.findById(id);
  if (!current) return new DomainError("product.not_found", "Product not found");
  return new DomainError("product.inventory_changed", `Inventory has changed: it is ${current.inventory} now, not ${expectedInventory}`, {
    productId: id,
    expectedInventory,
    inventory: current.inventory,
  });
}

export async function updateProduct(deps: CatalogDeps, actor: Actor, id: string, patch: ProductPatch, origin: RequestOrigin): Promise<Product> {
  requirePermission(actor, "products:write");
  const { expectedInventory, ...fields } = patch;
  if ((fields.inventory === undefined) !== (expectedInventory === undefined)) {
    const message =
      expectedInventory === undefined
        ? "is required with inventory: the stock as you last read it (or add or take units with POST /api/admin/products/:id/inventory)"
        : "is only taken with inventory";
    throw new DomainError("invalid_input", "Invalid request", { issues: [{ path: "expectedInventory", message }] });
  }
  return applyChanges(deps, actor, id, { ...fields, updatedAt: deps.clock.now() }, "product.update", origin, expectedInventory);
}

/** Soft delete: the product leaves the catalog, while order items keep their copied data. */
export function deleteProduct(deps: CatalogDeps, actor: Actor, id: string, origin: RequestOrigin) {
  return applyChanges(deps, actor, id, { isActive: false, updatedAt: deps.clock.now() }, "product.delete", origin);
}
