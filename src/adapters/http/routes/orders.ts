import { Elysia } from "elysia";
import { z } from "zod";
import { MAX_CART_LINES } from "../../../domain/cart.ts";
import { toDollars } from "../../../domain/money.ts";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "../../../domain/order.ts";
import { MAX_PAGE_SIZE } from "../../../domain/paging.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { type Idempotency, heldKeyOf } from "../idempotency.ts";
import { JSON_BODY, errorBody, idOf, money, queryNumber } from "../schemas.ts";
import { orderSchema, presentOrder } from "../../presenters/order.ts";

const addressInput = z
  .strictObject({
    address1: z.string().trim().min(1).max(200),
    address2: z.string().trim().max(200).nullable().optional(),
    city: z.string().trim().min(1).max(100),
    state: z.string().trim().min(1).max(100).describe("state or province; for the US its two-letter code"),
    postalCode: z.string().trim().min(1).max(20).describe("for the US a ZIP code"),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "must be a two-letter country code")
      .optional()
      .describe("ISO 3166-1 alpha-2; US when absent"),
  })
  .meta({ id: "AddressInput" });

const orderFields = {
  shippingAddress: addressInput,
  billingAddress: addressInput.nullable().optional().describe("the shipping address when absent or null"),
  notes: z.string().max(1000).nullable().optional(),
};
const cartItemIds = z.array(idOf("a cart item")).min(1).max(MAX_CART_LINES);

const placedSchema = z.object({ clientSecret: z.string(), orderId: z.string(), orderNumber: z.string(), amount: money }).meta({ id: "PlacedOrder" });

const withAll = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .enum([...values, "all"] as [string, ...string[]])
    .optional()
    .transform((v) => (v === "all" ? undefined : (v as T[number] | undefined)));

const listQuery = z.object({
  status: withAll(ORDER_STATUSES).describe("or all"),
  paymentStatus: withAll(PAYMENT_STATUSES).describe("or all"),
  skip: queryNumber(z.number().int().min(0)).default(0),
  take: queryNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional().describe("every order from skip on when absent"),
  sortOrder: z.enum(["asc", "desc"]).default("desc").describe("by creation time"),
});

const statusChange = z
  .strictObject({
    status: z.enum(ORDER_STATUSES),
    trackingNumber: z.string().nullable().optional().describe("needed for SHIPPED (1 to 100 printable characters); no other move takes one"),
  })
  .meta({ id: "StatusChange" });

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

export function orderRoutes(useCases: UseCases, settings: AuthSettings, idempotency: Idempotency) {
  const place = <Ids extends z.ZodType<string[] | undefined>>(name: string, summary: string, ids: Ids) => ({
    auth: "required" as const,
    idempotent: true,
    body: z.strictObject({ cartItemIds: ids, ...orderFields }).meta({ id: name }),
    ...JSON_BODY,
    response: {
      200: placedSchema.describe("The order placed, and the client secret of its payment intent, for the amount to pay"),
      ...errors,
      409: errorBody,
      422: errorBody,
    },
    detail: {
      tags: ["Orders"],
      summary,
      description:
        "409 `Pay or cancel your unpaid orders first` when the customer already holds MAX_UNPAID_ORDERS unpaid orders (`details.limit`, `details.unpaidOrders`), or while a request with the same Idempotency-Key runs",
    },
  });

  return new Elysia({ name: "routes.orders" })
    .use(authPlugin(useCases, settings))
    .use(idempotency)
    .post(
      "/orders",
      async ({ principal, body, origin, request }) => presentPlaced(await useCases.placeOrder(principal.user.id, body, origin, heldKeyOf(request))),
      place("PlaceOrderRequest", "Turn cart lines into an order: stock is taken, and a payment intent made for the total", cartItemIds),
    )
    .post(
      "/cart/checkout",
      async ({ principal, body, origin, request }) =>
        presentPlaced(await useCases.placeOrder(principal.user.id, { ...body, cartItemIds: body.cartItemIds ?? null }, origin, heldKeyOf(request))),
      place("CheckoutRequest", "POST /api/orders with cartItemIds optional: every line the shopper sees when absent", cartItemIds.optional()),
    )
    .get(
      "/orders",
      async ({ principal, query, set }) => {
        const { orders, total } = await useCases.listOrders(principal.actor, { ...query, take: query.take ?? null });
        set.headers["x-total-count"] = String(total);
        return orders.map(presentOrder);
      },
      {
        auth: "required",
        query: listQuery,
        response: {
          200: z.array(orderSchema).describe("The signed-in user's orders from skip on, newest first unless sortOrder says otherwise"),
          400: errorBody,
          401: errorBody,
        },
        // A vendor extension the document's finishing reads: the 200 carries X-Total-Count.
        detail: {
          tags: ["Orders"],
          summary: "The signed-in user's orders, a bare array; the total before paging is in X-Total-Count",
          "x-total-count": true,
        } as object,
      },
    )
    .get("/orders/:id", async ({ principal, params }) => presentOrder(await useCases.getOrder(principal.actor, params.id)), {
      auth: "required",
      params: z.object({ id: idOf("an order") }),
      response: { 200: orderSchema.describe("The order"), ...errors },
      detail: { tags: ["Orders"], summary: "One order: its owner's, or anyone's with orders:read" },
    })
    .post("/orders/:id/cancel", async ({ principal, params, origin }) => presentOrder(await useCases.cancelOrder(principal.user.id, params.id, origin)), {
      auth: "required",
      params: z.object({ id: idOf("an order") }),
      response: {
        200: orderSchema.describe("The order, cancelled: its stock is back and its payment intent stopped"),
        ...errors,
        409: errorBody,
        500: errorBody,
      },
      detail: {
        tags: ["Orders"],
        summary: "Cancel an unpaid order of one's own: its payment intent is stopped and its stock comes back; the answer is the order",
        description:
          "400 `Order has already been paid` (also when its intent is found paid at the processor), 400 `Order cannot be cancelled in its current status` for anything but an unpaid PENDING order (a cancelled one included); 409 while a payment of it is processing; 500 `Payment processing failed` when the processor cannot be reached (nothing changes)",
      },
    })
    .put(
      "/orders/:id/status",
      // The move is done either way; a refund not made yet (due, retried until the processor answers)
      // shows as the order ended with its payment still PAID: the spec's successes are 200 and 201 alone.
      async ({ principal, params, body, origin }) => presentOrder((await useCases.changeOrderStatus(principal.actor, { id: params.id }, body, origin)).order),
      {
        auth: { permission: "orders:write" },
        params: z.object({ id: idOf("an order") }),
        body: statusChange,
        ...JSON_BODY,
        response: {
          200: orderSchema.describe(
            "The order as moved. Ended with a refund: payment REFUNDED when the processor made it; still PAID when it refused or could not be reached, the refund then due and retried by housekeeping until the processor answers",
          ),
          ...errors,
          409: errorBody,
          500: errorBody,
        },
        detail: {
          tags: ["Orders"],
          summary: "Move an order (orders:write): by the status table; a paid order cancelled or refunded is refunded (also needs financials:refunds)",
        },
      },
    );
}

function presentPlaced(placed: { orderId: string; orderNumber: string; clientSecret: string; amount: number }) {
  return { clientSecret: placed.clientSecret, orderId: placed.orderId, orderNumber: placed.orderNumber, amount: toDollars(placed.amount) };
}
