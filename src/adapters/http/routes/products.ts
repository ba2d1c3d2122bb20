import { Elysia } from "elysia";
import { z } from "zod";
import { SLUG_PATTERN, isCuid2 } from "../../../domain/ids.ts";
import { toDollars } from "../../../domain/money.ts";
import { EXPECTED_INVENTORY_MAX, MAX_HEAT_LEVEL, MAX_INVENTORY, MIN_HEAT_LEVEL, PRODUCT_SORTS, type Product, skuOf } from "../../../domain/product.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import {
  JSON_BODY,
  dollarsInCents,
  envelope,
  envelopeError,
  idOf,
  money,
  oneLineName,
  pageQuery,
  pagedEnvelope,
  queryDollars,
  queryNumber,
  timestamp,
  webUrl,
} from "../schemas.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";

export const productSchema = z
  .object({
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
  })
  .meta({ id: "Product" });

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

const listQuery = z
  .object({
    search: z.string().trim().min(1).max(100).optional(),
    heatLevel: queryNumber(z.number().int().min(MIN_HEAT_LEVEL).max(MAX_HEAT_LEVEL)).optional(),
    minPrice: queryDollars.optional().describe("US dollars"),
    maxPrice: queryDollars.optional().describe("US dollars"),
    sort: z.enum(PRODUCT_SORTS).default("newest"),
    ...pageQuery,
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
    message: "minPrice must not exceed maxPrice",
    path: ["minPrice"],
  });

const errors = { 400: envelopeError, 404: envelopeError };

const productFields = {
  name: oneLineName(200).min(1),
  slug: z
    .string()
    .max(200)
    .regex(new RegExp(SLUG_PATTERN), "must be lowercase words joined by hyphens")
    // Products are found by id or slug: a slug shaped like an id could answer for another product.
    .refine((slug) => !isCuid2(slug), "must not have the shape of a product id"),
  description: z.string().normalize("NFC").max(5000),
  price: dollarsInCents,
  compareAtPrice: dollarsInCents.nullable(),
  // In Unicode's compatibility form (NFKC: fullwidth `ＨＡＢ-1` is `HAB-1`, a no-break space a space)
  // and printable, on one line: an invisible character (a zero-width space) or a line break made a SKU
  // that looked like another's, that staff could not type to find it, and that split its CSV row (found by an attack).
  sku: z
    .string()
    .overwrite(skuOf)
    .min(1)
    .max(64)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, "must be printable characters on one line"),
  featuredImage: webUrl,
  images: z.array(webUrl).max(20),
  heatLevel: z.int().min(MIN_HEAT_LEVEL).max(MAX_HEAT_LEVEL),
  inventory: z.int().min(0).max(MAX_INVENTORY),
  isActive: z.boolean(),
  isFeatured: z.boolean(),
};

const newProduct = z
  .strictObject({
    ...productFields,
    slug: productFields.slug.optional().describe("derived from the name when absent"),
    description: productFields.description.default(""),
    compareAtPrice: productFields.compareAtPrice.default(null),
    images: productFields.images.optional().describe("defaults to [featuredImage]"),
    isActive: productFields.isActive.default(true),
    isFeatured: productFields.isFeatured.default(false),
  })
  .meta({ id: "ProductInput" });

const productPatch = z
  .strictObject({
    ...productFields,
    inventory: productFields.inventory.describe("only with expectedInventory"),
    expectedInventory: z
      .int()
      .min(0)
      .max(EXPECTED_INVENTORY_MAX)
      .describe("the inventory as last read (past 1,000,000 when ended orders gave units back); required with inventory, refused without it"),
  })
  .partial()
  .meta({ id: "ProductChanges" });
export const productAnswer = envelope(productSchema).meta({ id: "ProductEnvelope" });
export const productPage = pagedEnvelope(productSchema).meta({ id: "ProductPage" });
const idParam = z.object({ id: idOf("a product") });
const writeErrors = { 400: envelopeError, 401: envelopeError, 403: envelopeError, 404: envelopeError, 409: envelopeError };

export function productRoutes(useCases: UseCases, settings: AuthSettings) {
  return new Elysia({ name: "routes.products", prefix: "/products", detail: { tags: ["Products"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, settings))
    .get(
      "",
      async ({ query }) => {
        const { page, limit } = query;
        const result = await useCases.listProducts(query);
        return {
          success: true as const,
          data: result.items.map(presentProduct),
          error: null,
          meta: { total: result.total, page, limit },
        };
      },
      {
        envelope: true,
        query: listQuery,
        response: { 200: productPage.describe("A page of active products, and how many match in all"), ...errors },
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
        envelope: true,
        params: z.object({ id: z.string().max(200).regex(new RegExp(SLUG_PATTERN), "must be a product id or slug") }),
        response: { 200: productAnswer.describe("The product"), ...errors },
        detail: { summary: "One active product, by id or slug" },
      },
    )
    .post(
      "",
      async ({ body, principal, origin, status }) => {
        const product = await useCases.createProduct(principal.actor, body, origin);
        return status(201, { success: true as const, data: presentProduct(product), error: null });
      },
      {
        envelope: true,
        auth: { permission: "products:write" },
        body: newProduct,
        ...JSON_BODY,
        response: { 201: productAnswer.describe("The product made"), ...writeErrors },
        detail: { summary: "Create a product (products:write); prices in dollars" },
      },
    )
    .put(
      "/:id",
      async ({ params, body, principal, origin }) => ({
        success: true as const,
        data: presentProduct(await useCases.updateProduct(principal.actor, params.id, body, origin)),
        error: null,
      }),
      {
        envelope: true,
        auth: { permission: "products:write" },
        params: idParam,
        body: productPatch,
        ...JSON_BODY,
        response: { 200: productAnswer.describe("The product as changed"), ...writeErrors },
        detail: {
          summary: "Change some fields of a product (products:write)",
          description:
            "Setting `inventory` outright needs `expectedInventory`, the inventory as last read: both are checked and written in one statement, " +
            "so a restock typed over a sale in progress never wipes the sale out. Another stored value is 409 `Inventory has changed: it is N now, " +
            "not M` (`details.inventory` is the current value) and changes nothing; read it again, or add the units with " +
            "POST /api/admin/products/{id}/inventory. `inventory` without `expectedInventory`, or `expectedInventory` without `inventory`, is 400.",
        },
      },
    )
    .delete(
      "/:id",
      async ({ params, principal, origin }) => ({
        success: true as const,
        data: presentProduct(await useCases.deleteProduct(principal.actor, params.id, origin)),
        error: null,
      }),
      {
        envelope: true,
        auth: { permission: "products:write" },
        params: idParam,
        response: { 200: productAnswer.describe("The product, now off sale (isActive false)"), ...writeErrors },
        detail: { summary: "Take a product off sale (soft delete; products:write)" },
      },
    );
}
