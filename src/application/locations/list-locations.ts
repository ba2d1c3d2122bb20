import type { Location, LocationQuery } from "../../domain/location.ts";
import type { Paged } from "../../domain/paging.ts";
import type { Deps } from "../ports/index.ts";

export function listLocations(deps: Pick<Deps, "uow">, query: LocationQuery): Promise<Paged<Location>> {
  return deps.uow.read((db) => db.locations.list(query));
}
