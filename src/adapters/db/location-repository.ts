import { sql } from "kysely";
import { EARTH_RADIUS_MILES, type Location, boundingBox } from "../../domain/location.ts";
import { offsetOf } from "../../domain/paging.ts";
import type { LocationRepository } from "../../application/ports/catalog.ts";
import type { Db } from "./database.ts";
import { containsPattern, startsWithPattern, totalOf } from "./sql-helpers.ts";
import type { LocationRow } from "./tables.ts";

function toLocation(row: LocationRow): Location {
  return {
    id: row.id,
    name: row.name,
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    state: row.state,
    postalCode: row.postal_code,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
    phone: row.phone,
    website: row.website,
  };
}

export function createPgLocationRepository(db: Db): LocationRepository {
  return {
    async list(query) {
      let matching = db.selectFrom("locations");
      if (query.state !== undefined) matching = matching.where("state", "=", query.state);
      const q = query.q;
      if (q !== undefined) {
        const pattern = containsPattern(q);
        matching = matching.where((eb) => eb.or([eb("name", "ilike", pattern), eb("city", "ilike", pattern), eb("postal_code", "like", startsWithPattern(q))]));
      }
      const offset = offsetOf(query);
      const rows = await matching
        .selectAll()
        .select((eb) => eb.fn.countAll<string>().over().as("total"))
        .orderBy(sql`lower(name) collate "C"`)
        .orderBy("id")
        .limit(query.limit)
        .offset(offset)
        .execute();
      const total = await totalOf(rows, offset, () => matching.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow());
      return { items: rows.map(toLocation), total };
    },

    async nearby(query) {
      const box = boundingBox(query, query.radiusMiles);
      // Haversine, as in domain/location.ts; the bounding box lets the (latitude, longitude) index prune first.
      const distance = sql<number>`${2 * EARTH_RADIUS_MILES} * asin(least(1, sqrt(
        power(sin(radians(latitude - ${query.latitude}) / 2), 2)
        + cos(radians(${query.latitude})) * cos(radians(latitude))
        * power(sin(radians(longitude - ${query.longitude}) / 2), 2))))`;
      const rows = await db
        .with("candidates", (qb) =>
          qb
            .selectFrom("locations")
            .selectAll()
            .select(distance.as("distance_miles"))
            .where("latitude", ">=", box.minLatitude)
            .where("latitude", "<=", box.maxLatitude)
            .where("longitude", ">=", box.minLongitude)
            .where("longitude", "<=", box.maxLongitude),
        )
        .selectFrom("candidates")
        .selectAll()
        .select(sql<string>`count(*) over ()`.as("within_radius"))
        .where("distance_miles", "<=", query.radiusMiles)
        .orderBy("distance_miles")
        .orderBy(sql`lower(name) collate "C"`)
        .orderBy("id")
        .limit(query.limit)
        .execute();
      const items = rows.map((row) => ({ ...toLocation(row), distanceMiles: Number(row.distance_miles) }));
      return { items, total: Number(rows[0]?.within_radius ?? 0) };
    },

    async findByNameAndPostalCode(name, postalCode) {
      const row = await db.selectFrom("locations").selectAll().where("name", "=", name).where("postal_code", "=", postalCode).executeTakeFirst();
      return row ? toLocation(row) : null;
    },

    async create(l) {
      await db
        .insertInto("locations")
        .values({
          id: l.id,
          name: l.name,
          address1: l.address1,
          address2: l.address2,
          city: l.city,
          state: l.state,
          postal_code: l.postalCode,
          country: l.country,
          latitude: l.latitude,
          longitude: l.longitude,
          phone: l.phone,
          website: l.website,
        })
        .execute();
    },
  };
}
