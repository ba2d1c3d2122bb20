import { Elysia } from "elysia";
import { z } from "zod";
import { DEFAULT_RADIUS_MILES, type Location, MAX_RADIUS_MILES } from "../../../domain/location.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { envelopeError, pageQuery, pagedEnvelope, queryNumber } from "../schemas.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";

export const locationSchema = z.object({
  id: z.string(),
  name: z.string(),
  address1: z.string(),
  address2: z.string().nullable(),
  city: z.string(),
  state: z.string(),
  postalCode: z.string(),
  country: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
});

const nearbySchema = locationSchema.extend({ distanceMiles: z.number().describe("rounded to 0.01 mile") }).meta({ id: "NearbyLocation" });

const present = (l: Location): z.infer<typeof locationSchema> => ({
  id: l.id,
  name: l.name,
  address1: l.address1,
  address2: l.address2,
  city: l.city,
  state: l.state,
  postalCode: l.postalCode,
  country: l.country,
  latitude: l.latitude,
  longitude: l.longitude,
  phone: l.phone,
  website: l.website,
});

const listQuery = z.object({
  state: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be a two-letter state code")
    .transform((s) => s.toUpperCase())
    .optional(),
  q: z.string().trim().min(1).max(100).optional(),
  ...pageQuery,
});

const nearbyQuery = z.object({
  lat: queryNumber(z.number().min(-90).max(90)),
  lng: queryNumber(z.number().min(-180).max(180)),
  radius: queryNumber(z.number().positive().max(MAX_RADIUS_MILES)).default(DEFAULT_RADIUS_MILES).describe("miles"),
  limit: pageQuery.limit,
});

export function locationRoutes(useCases: UseCases) {
  return new Elysia({ name: "routes.locations", prefix: "/locations", detail: { tags: ["Locations"] } })
    .use(envelopeMacro)
    .get(
      "",
      async ({ query }) => {
        const result = await useCases.listLocations(query);
        return {
          success: true as const,
          data: result.items.map(present),
          error: null,
          meta: { total: result.total, page: query.page, limit: query.limit },
        };
      },
      {
        envelope: true,
        query: listQuery,
        response: {
          200: pagedEnvelope(locationSchema.meta({ id: "Location" })).describe("A page of retail locations, and how many match in all"),
          400: envelopeError,
        },
        detail: { summary: "List retail locations", description: "q matches name, city or the start of the postal code." },
      },
    )
    .get(
      "/nearby",
      async ({ query }) => {
        const found = await useCases.findNearbyLocations({
          latitude: query.lat,
          longitude: query.lng,
          radiusMiles: query.radius,
          limit: query.limit,
        });
        const data = found.items.map((l) => ({ ...present(l), distanceMiles: Math.round(l.distanceMiles * 100) / 100 }));
        return {
          success: true as const,
          data,
          error: null,
          meta: { total: found.total, page: 1, limit: query.limit },
        };
      },
      {
        envelope: true,
        query: nearbyQuery,
        response: {
          200: pagedEnvelope(nearbySchema).describe("The retail locations within the radius, nearest first, each with its distance"),
          400: envelopeError,
        },
        detail: { summary: "Retail locations within a radius, nearest first" },
      },
    );
}
