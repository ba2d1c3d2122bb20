import { Elysia } from "elysia";
import { z } from "zod";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "../../../domain/order.ts";
import { INTENT_STATUSES } from "../../../domain/payment.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import type { Idempotency } from "../idempotency.ts";
import { JSON_BODY, errorBody, idOf } from "../schemas.ts";

const paymentSchema = z
  .object({
    success: z.boolean().describe("true when the payment went through"),
    paymentIntent: z.object({
      id: z.string(),
      status: z.enum(INTENT_STATUSES),
      clientSecret: z.string().describe("for Stripe.js to finish 3-D Secure"),
      nextAction: z
        .object({ redirectUrl: z.string().describe("the page where the customer answers the bank") })
        .nullable()
        .describe("with requires_action on the built-in fake processor: its 3-D Secure challenge page; null otherwise"),
    }),
    order: z.object({ id: z.string(), orderNumber: z.string(), paymentStatus: z.enum(PAYMENT_STATUSES), status: z.enum(ORDER_STATUSES) }),
  })
  .meta({ id: "Payment" });

const declineBody = z
  .object({ error: z.string(), details: z.object({ code: z.string(), declineCode: z.string().nullable() }) })
  .meta({ id: "PaymentDeclined" });

const paymentRequest = z
  .strictObject({
    orderId: idOf("an order"),
    paymentMethodId: z
      .string()
      .regex(/^[A-Za-z0-9_]{3,100}$/, "must be a payment method id, such as pm_card_visa")
      .describe("the processor's payment method id"),
  })
  .meta({ id: "PaymentRequest" });

/** POST /api/payment (spec: Payment): pays the caller's order with a payment method of the processor's. */
export function paymentRoutes(useCases: UseCases, settings: AuthSettings, idempotency: Idempotency) {
  return new Elysia({ name: "routes.payment" })
    .use(authPlugin(useCases, settings))
    .use(idempotency)
    .post("/payment", async ({ principal, body, origin }) => useCases.payOrder(principal.user.id, body, origin), {
      auth: "required",
      idempotent: true,
      body: paymentRequest,
      ...JSON_BODY,
      response: {
        200: paymentSchema.describe("Where the payment stands: the intent (succeeded, or requires_action for 3-D Secure) and the order"),
        400: errorBody,
        401: errorBody,
        402: declineBody.describe("The card was declined; the order stays payable with another one"),
        403: errorBody,
        404: errorBody,
        409: errorBody,
        422: errorBody,
        500: errorBody,
      },
      detail: {
        tags: ["Payment"],
        summary: "Pay an order: the caller's own, while payable; succeeded confirms it, requires_action hands back the client secret, a decline is 402",
      },
    });
}
