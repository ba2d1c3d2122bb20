import { Elysia } from "elysia";
import { z } from "zod";
import { SLUG_PATTERN } from "../../../domain/ids.ts";
import { dollarsToCents, toDollars } from "../../../domain/money.ts";
import { MAX_HEAT_LEVEL, MIN_HEAT_LEVEL, PRODUCT_SORTS, type Product } from "../../../domain/product.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { envelope, envelopeError, money, pageQuery, pagedEnvelope, timestamp } from "../schemas.ts";

export const productSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  price: money,
  compareAtPrice: money.nullable(),
  sku: z.string(),
  featuredImage: z.url(),
  images: z.array(z.url()),
  heatLevel: z.int().min(MIN_HEAT_LEVEL).max(MAX_HEAT_LEVEL),
  inventory: z.int(),
  isActive: z.boolean(),
  isFeatured: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export function presentProduct(p: Product): z.infer<typeof productSchema> {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    description: p.description,
    price: toDollars(p.price),
    compareAtPrice: p.compareAtPrice === null ? null : toDollars(p.compareAtPrice),
    sku: p.sku,
    featuredImage: p.featuredImage,
    images: p.images,
    heatLevel: p.heatLevel,
    inventory: p.inventory,
    isActive: p.isActive,
    isFeatured: p.isFeatured,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const price = z.coerce.number().min(0).max(100_000);

const listQuery = z
  .object({
    search: z.string().trim().min(1).max(100).optional(),
    heatLevel: z.coerce.number().int().min(MIN_HEAT_LEVEL).max(MAX_HEAT_LEVEL).optional(),
    minPrice: price.optional().describe("US dollars"),
    maxPrice: price.optional().describe("US dollars"),
    sort: z.enum(PRODUCT_SORTS).default("newest"),
    ...pageQuery,
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
    message: "minPrice must not exceed maxPrice",
    path: ["minPrice"],
  });

const errors = { 400: envelopeError, 404: envelopeError };

export function productRoutes(useCases: UseCases) {
  return new Elysia({ name: "routes.products", prefix: "/products", detail: { tags: ["Products"] } })
    .get(
      "",
      async ({ query }) => {
        const { page, limit } = query;
        const result = await useCases.listProducts({
          ...query,
          minPrice: query.minPrice === undefined ? undefined : dollarsToCents(query.minPrice, "minPrice"),
          maxPrice: query.maxPrice === undefined ? undefined : dollarsToCents(query.maxPrice, "maxPrice"),
        });
        return {
          success: true as const,
          data: result.items.map(presentProduct),
          error: null,
          meta: { total: result.total, page, limit },
        };
      },
      {
        query: listQuery,
        response: { 200: pagedEnvelope(productSchema), ...errors },
        detail: { summary: "List active products", description: "search matches name and description." },
      },
    )
    .get(
      "/:id",
      async ({ params }) => ({
        success: true as const,
        data: presentProduct(await useCases.getProduct(params.id)),
        error: null,
      }),
      {
        params: z.object({ id: z.string().max(200).regex(new RegExp(SLUG_PATTERN), "must be a product id or slug") }),
        response: { 200: envelope(productSchema), ...errors },
        detail: { summary: "One active product, by id or slug" },
      },
    );
}
