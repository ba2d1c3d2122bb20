import { Elysia } from "elysia";
import { z } from "zod";
import type { UseCases } from "../../../application/use-cases.ts";
import { UnverifiedEvent, verifyStripeEvent } from "../../payments/stripe-events.ts";
import { HttpError } from "../errors.ts";
import { readBody } from "../plumbing/body.ts";
import { errorBody } from "../schemas.ts";

export interface WebhookSettings {
  /** STRIPE_WEBHOOK_SECRET; null: the Stripe webhook answers 503. */
  stripeSecret: string | null;
}

const received = z.object({ received: z.literal(true) }).meta({ id: "WebhookReceived" });

/**
 * The processors' webhooks (decisions §8): each reads its body raw, as signed (`parse: "none"`:
 * no parser, no input checks, still at most 1 MB), verifies it, and hands the event to one use case.
 * 200 tells the sender it is done with; a failure is a 500, and the sender delivers again.
 */
export function webhookRoutes(useCases: UseCases, settings: WebhookSettings) {
  return new Elysia({ name: "routes.webhooks", prefix: "/webhooks", detail: { tags: ["Webhooks"] } }).post(
    "/stripe",
    async ({ request }) => {
      if (!settings.stripeSecret) throw new HttpError(503, "Stripe webhooks are not configured");
      const payload = await readBody(request);
      const event = await verifyStripeEvent(payload, request.headers.get("stripe-signature"), settings.stripeSecret).catch((error: unknown) => {
        throw error instanceof UnverifiedEvent ? new HttpError(400, "Invalid signature") : error;
      });
      await useCases.receivePaymentEvent(event);
      return { received: true as const };
    },
    {
      parse: "none",
      response: { 200: received, 400: errorBody, 413: errorBody, 500: errorBody, 503: errorBody },
      detail: {
        summary: "Stripe's events: payment_intent.succeeded, .payment_failed, .canceled and charge.refunded, each applied once; other types acknowledged",
        security: [],
        parameters: [{ in: "header", name: "Stripe-Signature", required: true, schema: { type: "string" }, description: "Stripe's signature of the raw body" }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: "A Stripe Event, exactly as Stripe signed it" } } } },
        "x-raw-body": true,
      } as object,
    },
  );
}
