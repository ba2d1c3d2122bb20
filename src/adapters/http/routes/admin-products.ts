import { Elysia } from "elysia";
import { z } from "zod";
import { MAX_ADJUSTMENT_REASON_LENGTH, MAX_INVENTORY_DELTA } from "../../../domain/product.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { JSON_BODY, documentedAs, envelopeError, idOf, pageQuery } from "../schemas.ts";
import { presentProduct, productAnswer, productPage } from "./products.ts";

const isActive = z.enum(["true", "false"]).transform((value) => value === "true");
documentedAs.set(isActive, z.boolean());
// Only `true`: "not low" would be a filter of its own, and a client sending false most likely means "every stock level".
const lowStock = z.literal("true", { error: "must be true (leave it out to list every stock level)" }).transform(() => true as const);
documentedAs.set(lowStock, z.literal(true));

const listQuery = z.object({
  q: z
    .string()
    .max(100)
    .transform((text) => text.trim() || undefined)
    .optional()
    .describe("part of the name or the SKU, in any case; blank is no filter"),
  isActive: isActive.optional().describe("true: only the products on sale; false: only those off sale"),
  lowStock: lowStock.optional().describe("only the products with LOW_STOCK_THRESHOLD units or fewer (5 unless the shop sets it)"),
  ...pageQuery,
});

const adjustment = z
  .strictObject({
    delta: z
      .int()
      .min(-MAX_INVENTORY_DELTA)
      .max(MAX_INVENTORY_DELTA)
      .refine((delta) => delta !== 0, "must not be 0")
      .describe("units to add; negative to take"),
    reason: z.string().trim().min(1).max(MAX_ADJUSTMENT_REASON_LENGTH).describe("why, for the audit log"),
  })
  .meta({ id: "InventoryAdjustment" });

const errors = { 400: envelopeError, 401: envelopeError, 403: envelopeError };

/** The back office's products (decisions §12). */
export function adminProductsRoutes(useCases: UseCases, settings: AuthSettings) {
  return new Elysia({ name: "routes.admin-products", prefix: "/admin/products", detail: { tags: ["Back office"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, settings))
    .get(
      "",
      async ({ query, principal }) => {
        const { page, limit } = query;
        const result = await useCases.listAdminProducts(principal.actor, query);
        return { success: true as const, data: result.items.map(presentProduct), error: null, meta: { total: result.total, page, limit } };
      },
      {
        envelope: true,
        auth: { permission: "products:read" },
        query: listQuery,
        response: { 200: productPage.describe("A page of products, off sale ones too, and how many match in all"), ...errors },
        detail: {
          summary: "Every product, off sale too (products:read)",
          description: "Newest first. Filters combine: `q` (name or SKU), `isActive`, `lowStock=true` (LOW_STOCK_THRESHOLD units or fewer).",
        },
      },
    )
    .post(
      "/:id/inventory",
      async ({ params, body, principal, origin }) => {
        const { product } = await useCases.adjustInventory(principal.actor, { id: params.id }, body, origin);
        return { success: true as const, data: presentProduct(product), error: null };
      },
      {
        envelope: true,
        auth: { permission: "products:write" },
        params: z.object({ id: idOf("a product") }),
        body: adjustment,
        ...JSON_BODY,
        response: { 200: productAnswer.describe("The product as the adjustment left it"), ...errors, 404: envelopeError },
        detail: {
          summary: "Add units to a product's stock, or take them (products:write)",
          description:
            "One conditional update: the delta is added to the stock as it is, whatever sales took meanwhile, and never takes it below zero " +
            "(400 `Insufficient inventory`, `details.available`) nor past 1,000,000. Audited as `product.inventory_adjust` with the delta, " +
            "the reason, and the stock before and after. Answers the product as the update left it.",
        },
      },
    );
}
