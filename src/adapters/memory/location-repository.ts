import { type Location, compareLocations, distanceMiles, matchesLocationQuery } from "../../domain/location.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { LocationRepository } from "../../application/ports/catalog.ts";

export function createMemoryLocationRepository(locations: Map<string, Location>): LocationRepository {
  return {
    async list(query) {
      const matching = [...locations.values()].filter((l) => matchesLocationQuery(l, query)).sort(compareLocations);
      const start = offsetOf(query);
      return { items: structuredClone(matching.slice(start, start + query.limit)), total: matching.length };
    },
    async nearby(query) {
      const within = [...locations.values()]
        .map((l) => ({ ...structuredClone(l), distanceMiles: distanceMiles(query, l) }))
        .filter((l) => l.distanceMiles <= query.radiusMiles)
        .sort((a, b) => a.distanceMiles - b.distanceMiles || compareLocations(a, b));
      return { items: within.slice(0, query.limit), total: within.length };
    },
    async findByNameAndPostalCode(name, postalCode) {
      const found = [...locations.values()].find((l) => l.name === name && l.postalCode === postalCode);
      return found ? structuredClone(found) : null;
    },
    async create(location) {
      locations.set(location.id, structuredClone(location));
    },
  };
}
