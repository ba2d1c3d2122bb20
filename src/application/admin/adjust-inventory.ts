import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type InventoryAdjustment, MAX_INVENTORY, type Product, adjustmentFits, inventoryAdjustmentIssues, skuOf } from "../../domain/product.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps, Repositories } from "../ports/index.ts";

/** The product by id (HTTP), or by SKU (the CLI, where people type what is on the label). */
export type ProductRef = { id: string } | { sku: string };

export interface AdjustedInventory {
  /** As the adjustment left it. */
  product: Product;
  before: number;
}

/**
 * Adds `delta` units to a product's stock, or takes them (decisions §12), on sale or not: one
 * conditional update that never leaves the stock below zero, so a count typed in while checkouts
 * take units adds to what they left, and the audit entry (who, why, before and after) lands with it.
 */
export async function adjustInventory(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  actor: Actor,
  ref: ProductRef,
  input: InventoryAdjustment,
  origin: RequestOrigin,
): Promise<AdjustedInventory> {
  requirePermission(actor, "products:write");
  const adjustment = { delta: input.delta, reason: input.reason.trim() };
  const issues = inventoryAdjustmentIssues(adjustment);
  if (issues.length) throw new DomainError("invalid_input", "Invalid request", { issues });
  const { delta, reason } = adjustment;
  return deps.uow.transaction(async (tx) => {
    const id = "id" in ref ? ref.id : (await tx.products.findBySku(skuOf(ref.sku)))?.id;
    if (id === undefined) throw productNotFound();
    const product = await adjusted(tx, id, delta, deps.clock.now());
    const before = product.inventory - delta;
    await recordAudit(tx, deps, {
      userId: actor.userId,
      action: "product.inventory_adjust",
      entityType: "product",
      entityId: product.id,
      changes: { delta, reason, before, after: product.inventory },
      origin,
    });
    return { product, before };
  });
}

const productNotFound = () => new DomainError("product.not_found", "Product not found");

/** Times an adjustment is tried when the stock, read again after a refusal, shows it fits now. */
const ADJUST_TRIES = 3;

/**
 * The product as the adjustment left it. Refused, the stock is read again to say why; when it fits
 * by then (a delivery landed just after a take was judged on the stock before it), the adjustment
 * is tried again: the refusal named "past 1,000,000" for a take (found by an attack).
 */
async function adjusted(tx: Repositories, id: string, delta: number, at: Date): Promise<Product> {
  for (let attempt = 1; ; attempt++) {
    const product = await tx.products.adjustInventory(id, delta, at);
    if (product) return product;
    const current = await tx.products.findById(id);
    if (!current) throw productNotFound();
    if (!adjustmentFits(current.inventory, delta) || attempt >= ADJUST_TRIES) throw refusal(current, delta);
  }
}

/** Why an adjustment of the product's stock is refused: a take only ever for too few units, an addition only for passing the cap (adjustmentFits). */
function refusal(current: Product, delta: number): DomainError {
  if (delta < 0) {
    return new DomainError("inventory.insufficient", "Insufficient inventory", {
      productId: current.id,
      productName: current.name,
      requested: -delta,
      available: current.inventory,
    });
  }
  return new DomainError("invalid_input", "Invalid request", {
    issues: [{ path: "delta", message: `would add to the inventory past ${MAX_INVENTORY} (it holds ${current.inventory})` }],
  });
}
