import { Elysia } from "elysia";
import { z } from "zod";
import { DomainError } from "../../../domain/errors.ts";
import type { WebhookVerifier } from "../../../application/events/webhook-event.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { originOf } from "../auth.ts";
import { readBody } from "../plumbing/body.ts";
import { errorBody } from "../schemas.ts";

export type WebhookSettings = Record<string, WebhookVerifier | null>;

const received = z.object({ received: z.literal(true) }).meta({ id: "WebhookReceived" });

const ABOUT: Record<string, { name: string; summary: string; signedWith: string[] }> = {
  stripe: {
    name: "Stripe",
    summary: "Stripe: payment_intent.succeeded, .payment_failed, .canceled and charge.refunded",
    signedWith: ["Stripe-Signature"],
  },
  paypal: {
    name: "PayPal",
    summary: "PayPal: PAYMENT.CAPTURE.COMPLETED pays the order named by custom_id; PAYMENT.CAPTURE.REFUNDED is recorded",
    signedWith: ["PAYPAL-TRANSMISSION-ID", "PAYPAL-TRANSMISSION-TIME", "PAYPAL-TRANSMISSION-SIG", "PAYPAL-CERT-URL", "PAYPAL-AUTH-ALGO"],
  },
  square: {
    name: "Square",
    summary: "Square: payment.updated with a COMPLETED payment pays the order named by reference_id",
    signedWith: ["X-Square-HmacSha256-Signature"],
  },
  easypost: {
    name: "EasyPost",
    summary: "EasyPost: tracker.updated; delivered moves the SHIPPED order with that tracking number to DELIVERED",
    signedWith: ["X-Hmac-Signature"],
  },
  resend: {
    name: "Resend",
    summary: "Resend: email.bounced and email.complained suppress the addresses; email.delivered marks the message",
    signedWith: ["svix-id", "svix-timestamp", "svix-signature"],
  },
};

/**
 * The providers' webhooks (decisions §8, §11), one pipeline: each reads its body raw, as signed
 * (`parse: "none"`: no parser, no input checks, still at most 1 MB), has its provider's verifier
 * check and read it before anything is written, and hands the event to one use case. 200 tells
 * the sender it is done with; a failure is a 500, and the sender delivers again.
 */
export function webhookRoutes(useCases: UseCases, verifiers: WebhookSettings) {
  // Elysia adds each route to the instance itself; the instance is what the app uses.
  const routes = new Elysia({ name: "routes.webhooks", prefix: "/webhooks", detail: { tags: ["Webhooks"] } });
  for (const [provider, verify] of Object.entries(verifiers)) {
    const about = ABOUT[provider] ?? { name: provider, summary: provider, signedWith: [] };
    routes.post(
      `/${provider}`,
      async ({ request }) => {
        if (!verify) throw new DomainError("webhook.not_configured", `${about.name} webhooks are not configured`);
        const event = await verify(await readBody(request), request.headers);
        await useCases.receiveWebhookEvent({ ...event, origin: originOf(request) });
        return { received: true as const };
      },
      {
        parse: "none",
        response: {
          200: received.describe("The event is done with: applied once, or acknowledged (a repeat, or a type the shop does not act on)"),
          400: errorBody,
          413: errorBody,
          500: errorBody,
          503: errorBody,
        },
        detail: {
          summary: `${about.summary}; each event applied once, other types acknowledged`,
          security: [],
          parameters: about.signedWith.map((name) => ({ in: "header", name, required: true, schema: { type: "string" } })),
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object", description: `The provider's event, exactly as it signed it` } } },
          },
          "x-raw-body": true,
        } as object,
      },
    );
  }
  return routes;
}
