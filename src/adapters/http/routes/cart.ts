import { Elysia } from "elysia";
import { z } from "zod";
import type { Cart } from "../../../application/cart/get-cart.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { MAX_LINE_QUANTITY, type CartLine } from "../../../domain/cart.ts";
import { toDollars } from "../../../domain/money.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { JSON_BODY, errorBody, idOf, money } from "../schemas.ts";

const shortProduct = z.object({ id: z.string(), name: z.string(), price: money, featuredImage: z.string() });
const fullProduct = shortProduct.extend({
  slug: z.string(),
  compareAtPrice: money.nullable(),
  heatLevel: z.int(),
  inventory: z.int(),
});
const line = <P extends z.ZodType>(product: P) => z.object({ id: z.string(), productId: z.string(), quantity: z.int().min(1), product });

const cartSchema = z
  .object({
    items: z.array(line(fullProduct).meta({ id: "CartItem" })),
    itemCount: z.int().describe("distinct items"),
    totalQuantity: z.int(),
    subtotal: money,
  })
  .meta({ id: "Cart" });
const changedLine = z.object({ success: z.literal(true), cartItem: line(shortProduct).meta({ id: "CartItemChanged" }) }).meta({ id: "CartItemChange" });
const removedLine = z.object({ success: z.literal(true), message: z.string() }).meta({ id: "CartItemRemoved" });

/** The spec's short form of a cart line, as add and update return it. */
function presentChanged({ id, productId, quantity, product }: CartLine): z.infer<typeof changedLine> {
  return {
    success: true,
    cartItem: {
      id,
      productId,
      quantity,
      product: { id: product.id, name: product.name, price: toDollars(product.price), featuredImage: product.featuredImage },
    },
  };
}

function presentCart(cart: Cart): z.infer<typeof cartSchema> {
  return {
    items: cart.lines.map(({ id, productId, quantity, product: p }) => ({
      id,
      productId,
      quantity,
      product: {
        id: p.id,
        name: p.name,
        slug: p.slug,
        price: toDollars(p.price),
        compareAtPrice: p.compareAtPrice === null ? null : toDollars(p.compareAtPrice),
        featuredImage: p.featuredImage,
        heatLevel: p.heatLevel,
        inventory: p.inventory,
      },
    })),
    itemCount: cart.itemCount,
    totalQuantity: cart.totalQuantity,
    subtotal: toDollars(cart.subtotal),
  };
}

const quantity = z.int().min(1).max(MAX_LINE_QUANTITY);
const addition = z.strictObject({ productId: idOf("a product"), quantity }).meta({ id: "CartItemInput" });
const newQuantity = z.strictObject({ quantity }).meta({ id: "CartItemQuantity" });
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

// Each route gets options of its own: Elysia rewrites an options object while it applies macros,
// and a second route given the same object would lose what the macros add (its documented security).
const add = (summary: string) => ({
  auth: "required" as const,
  body: addition,
  ...JSON_BODY,
  response: { 200: changedLine.describe("The cart line as it now stands: a product already in the cart has the quantity added to it"), ...errors },
  detail: { summary },
});
const remove = (summary: string) => ({
  auth: "required" as const,
  response: { 200: removedLine.describe("The line is gone from the cart"), ...errors },
  detail: { summary },
});

export function cartRoutes(useCases: UseCases, settings: AuthSettings) {
  return new Elysia({ name: "routes.cart", prefix: "/cart", detail: { tags: ["Cart"] } })
    .use(authPlugin(useCases, settings))
    .get("", async ({ principal }) => presentCart(await useCases.getCart(principal.user.id)), {
      auth: "required",
      response: { 200: cartSchema.describe("The cart: its lines with their products, and its totals"), 401: errorBody },
      detail: { summary: "The signed-in user's cart, with totals computed in cents" },
    })
    .post(
      "",
      async ({ principal, body, origin }) => presentChanged(await useCases.addToCart(principal.user.id, body, origin)),
      add("Add a product; a product already in the cart has its quantity increased"),
    )
    .post(
      "/items",
      async ({ principal, body, origin }) => presentChanged(await useCases.addToCart(principal.user.id, body, origin)),
      add("Alias of POST /api/cart"),
    )
    .put(
      "/:id",
      async ({ principal, params, body, origin }) => presentChanged(await useCases.updateCartItem(principal.user.id, params.id, body.quantity, origin)),
      {
        auth: "required",
        params: z.object({ id: idOf("a cart item") }),
        body: newQuantity,
        ...JSON_BODY,
        response: { 200: changedLine.describe("The cart line with its new quantity"), ...errors },
        detail: { summary: "Set a line's quantity (stock is checked again)" },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, origin }) => {
        await useCases.removeCartItem(principal.user.id, params.id, origin);
        return { success: true as const, message: "Item removed from cart" };
      },
      { ...remove("Remove a line from the cart"), params: z.object({ id: idOf("a cart item") }) },
    )
    .delete(
      "/items/:itemId",
      async ({ principal, params, origin }) => {
        await useCases.removeCartItem(principal.user.id, params.itemId, origin);
        return { success: true as const, message: "Item removed from cart" };
      },
      { ...remove("Alias of DELETE /api/cart/{id}"), params: z.object({ itemId: idOf("a cart item") }) },
    );
}
