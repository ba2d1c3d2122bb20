import { Elysia } from "elysia";
import { z } from "zod";
import { ORDER_STATUSES, PAYMENT_STATUSES } from "../../../domain/order.ts";
import { INTENT_STATUSES } from "../../../domain/payment.ts";
import { TEST_PAYMENT_METHODS } from "../../payments/fake-processor.ts";
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

const paymentMethods = z
  .object({
    processor: z.enum(["fake", "stripe"]).describe("who takes the payments: the built-in fake processor, or Stripe"),
    publishableKey: z
      .string()
      .nullable()
      .describe("with Stripe, the publishable key for Stripe.js (STRIPE_PUBLISHABLE_KEY; null when not set); null with the fake processor"),
    testMethods: z
      .array(
        z.object({
          id: z.string().describe("the paymentMethodId to send to POST /api/payment"),
          name: z.string(),
          result: z.enum(["succeeds", "declined", "3-D Secure"]).describe("what paying with it does"),
        }),
      )
      .describe("with the fake processor, the test payment methods it takes; empty with Stripe"),
  })
  .meta({ id: "PaymentMethods" });

const RESULTS = { succeeded: "succeeds", requires_payment_method: "declined", requires_action: "3-D Secure" } as const;

/** Who takes the payments: a storefront's payment step offers the fake's test methods, or loads Stripe.js. */
export type PaymentProcessorInfo = { processor: "fake" } | { processor: "stripe"; publishableKey: string | null };

function methodsOf(info: PaymentProcessorInfo): z.infer<typeof paymentMethods> {
  if (info.processor === "stripe") return { processor: "stripe", publishableKey: info.publishableKey, testMethods: [] };
  const testMethods = Object.entries(TEST_PAYMENT_METHODS).map(([id, method]) => ({
    id,
    name: method.name,
    result: RESULTS[method.status as keyof typeof RESULTS],
  }));
  return { processor: "fake", publishableKey: null, testMethods };
}

/** POST /api/payment (spec: Payment): pays the caller's order with a payment method of the processor's; GET /api/payment/methods: how to pay here. */
export function paymentRoutes(useCases: UseCases, settings: AuthSettings, idempotency: Idempotency, processor: PaymentProcessorInfo) {
  const methods = methodsOf(processor);
  return new Elysia({ name: "routes.payment" })
    .get("/payment/methods", () => methods, {
      response: { 200: paymentMethods.describe("Who takes the payments, and how a page pays: the fake's test methods, or Stripe.js's key") },
      detail: {
        tags: ["Payment"],
        summary: "How to pay in this shop: the built-in fake processor's test methods by name, or Stripe's publishable key for Stripe.js",
        security: [],
      },
    })
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
