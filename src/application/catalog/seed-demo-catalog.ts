import type { Location } from "../../domain/location.ts";
import type { Product } from "../../domain/product.ts";
import type { Deps } from "../ports.ts";

export type DemoProduct = Omit<Product, "id" | "isActive" | "createdAt" | "updatedAt">;
export type DemoLocation = Omit<Location, "id">;

export interface DemoCatalog {
  products: readonly DemoProduct[];
  locations: readonly DemoLocation[];
}

export interface SeedResult {
  productsAdded: number;
  locationsAdded: number;
}

/**
 * Adds whatever part of the demo catalog is missing (products by slug, locations by name and postal
 * code), in one transaction, so running it twice changes nothing.
 */
export function seedDemoCatalog(deps: Pick<Deps, "uow" | "ids" | "clock">, catalog: DemoCatalog): Promise<SeedResult> {
  return deps.uow.transaction(async (tx) => {
    const now = deps.clock.now().getTime();
    let productsAdded = 0;
    let locationsAdded = 0;
    for (const [index, demo] of catalog.products.entries()) {
      if (await tx.products.findByIdOrSlug(demo.slug)) continue;
      // One second apart, so "newest first" lists the catalog in its written order.
      const at = new Date(now - index * 1000);
      await tx.products.create({ ...demo, id: deps.ids.next(), isActive: true, createdAt: at, updatedAt: at });
      productsAdded++;
    }
    for (const demo of catalog.locations) {
      if (await tx.locations.findByNameAndPostalCode(demo.name, demo.postalCode)) continue;
      await tx.locations.create({ ...demo, id: deps.ids.next() });
      locationsAdded++;
    }
    return { productsAdded, locationsAdded };
  });
}
