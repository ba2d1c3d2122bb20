import { z } from "zod";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../domain/paging.ts";

/** Shapes shared by several routes. Route-specific shapes live beside their routes. */

export const money = z.number().describe("US dollars, at most 2 decimals");
export const timestamp = z.iso.datetime().describe("ISO 8601, UTC");

export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
};

export const pageMeta = z.object({ total: z.int(), page: z.int(), limit: z.int() });

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, error: z.null() });
}

export function pagedEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), data: z.array(item), error: z.null(), meta: pageMeta });
}

export const errorBody = z.object({
  error: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const envelopeError = z.object({
  success: z.literal(false),
  data: z.null(),
  error: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
