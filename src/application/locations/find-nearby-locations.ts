import type { NearbyQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { Deps, LocationWithDistance } from "../ports.ts";

export function findNearbyLocations(
  deps: Pick<Deps, "locations">,
  query: NearbyQuery,
): Promise<Paged<LocationWithDistance>> {
  return deps.locations.nearby(query);
}
