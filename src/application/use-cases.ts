import type { LocationQuery, NearbyQuery } from "../domain/location.ts";
import type { ProductQuery } from "../domain/product.ts";
import { getProduct } from "./catalog/get-product.ts";
import { listProducts } from "./catalog/list-products.ts";
import { type DemoCatalog, seedDemoCatalog } from "./catalog/seed-demo-catalog.ts";
import { findNearbyLocations } from "./locations/find-nearby-locations.ts";
import { listLocations } from "./locations/list-locations.ts";
import type { Deps } from "./ports.ts";
import { checkHealth } from "./system/check-health.ts";

/** Every use case bound to its dependencies: what HTTP routes and CLI commands call. */
export function makeUseCases(deps: Deps) {
  return {
    listProducts: (query: ProductQuery) => listProducts(deps, query),
    getProduct: (idOrSlug: string) => getProduct(deps, idOrSlug),
    listLocations: (query: LocationQuery) => listLocations(deps, query),
    findNearbyLocations: (query: NearbyQuery) => findNearbyLocations(deps, query),
    checkHealth: () => checkHealth(deps),
    seedDemoCatalog: (catalog: DemoCatalog) => seedDemoCatalog(deps, catalog),
  };
}

export type UseCases = ReturnType<typeof makeUseCases>;
