import type { Location, LocationQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { Deps } from "../ports.ts";

export function listLocations(deps: Pick<Deps, "locations">, query: LocationQuery): Promise<Paged<Location>> {
  return deps.locations.list(query);
}
