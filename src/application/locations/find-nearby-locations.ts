import type { NearbyQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { LocationWithDistance } from "../ports/catalog.ts";
import type { Deps } from "../ports/index.ts";

export function findNearbyLocations(deps: Pick<Deps, "uow">, query: NearbyQuery): Promise<Paged<LocationWithDistance>> {
  return deps.uow.read((db) => db.locations.nearby(query));
}
