import { Elysia } from "elysia";
import { z } from "zod";
import { DomainError } from "../../../domain/errors.ts";
import type { PaymentEventVerifier } from "../../../application/payments/receive-payment-event.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { readBody } from "../plumbing/body.ts";
import { errorBody } from "../schemas.ts";

export interface WebhookSettings {
  /** Stripe's verifier, with STRIPE_WEBHOOK_SECRET; null: the Stripe webhook answers 503. */
  stripe: PaymentEventVerifier | null;
}

const received = z.object({ received: z.literal(true) }).meta({ id: "WebhookReceived" });

/**
 * The processors' webhooks (decisions §8): each reads its body raw, as signed (`parse: "none"`:
 * no parser, no input checks, still at most 1 MB), has it verified, and hands the event to one use
 * case. 200 tells the sender it is done with; a failure is a 500, and the sender delivers again.
 */
export function webhookRoutes(useCases: UseCases, settings: WebhookSettings) {
  return new Elysia({ name: "routes.webhooks", prefix: "/webhooks", detail: { tags: ["Webhooks"] } }).post(
    "/stripe",
    async ({ request }) => {
      if (!settings.stripe) throw new DomainError("webhook.not_configured", "Stripe webhooks are not configured");
      const event = await settings.stripe(await readBody(request), request.headers);
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
