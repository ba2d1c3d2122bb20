import type { Location } from "../../domain/location.ts";
import type { Product } from "../../domain/product.ts";
import type { Deps } from "../ports/index.ts";

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

/**
 * Seeds the demo catalog into a shop that has nothing on sale and no locations yet, whenever that
 * is first seen (not only right after the first migration: `db:migrate` may have run before the
 * first start). Null when the shop already had a catalog.
 */
export async function seedDemoCatalogIfEmpty(deps: Pick<Deps, "uow" | "ids" | "clock">, catalog: DemoCatalog): Promise<SeedResult | null> {
  const [products, locations] = await deps.uow.read((db) =>
    Promise.all([db.products.list({ sort: "newest", page: 1, limit: 1 }), db.locations.list({ page: 1, limit: 1 })]),
  );
  return products.total === 0 && locations.total === 0 ? seedDemoCatalog(deps, catalog) : null;
}
