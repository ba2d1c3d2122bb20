import { Webhook, WebhookVerificationError } from "svix";
import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import { PROVIDER_ID, invalidSignature, readJson } from "./read.ts";

const eventShape = z.object({
  type: z.string().min(1).max(255),
  data: z.object({ email_id: z.string().regex(PROVIDER_ID).optional(), to: z.array(z.string().email().max(320)).max(100).optional() }).passthrough(),
});

/**
 * Resend (decisions §11) signs with Svix: `svix-id`, `svix-timestamp` and `svix-signature`, checked
 * by the `svix` package with its five-minute tolerance. The event id is `svix-id`. Bounces and
 * complaints suppress their addresses; a delivery is marked on its message; others are not acted on.
 */
export function resendWebhookVerifier(secret: string | null): WebhookVerifier | null {
  if (!secret) return null;
  const svix = new Webhook(secret);
  return async (payload, headers) => {
    const signed = { "svix-id": headers.get("svix-id") ?? "", "svix-timestamp": headers.get("svix-timestamp") ?? "", "svix-signature": headers.get("svix-signature") ?? "" };
    try {
      svix.verify(Buffer.from(payload), signed);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw invalidSignature();
      throw error;
    }
    if (!PROVIDER_ID.test(signed["svix-id"])) throw invalidSignature();
    const event = readJson(payload, eventShape, "a Resend event");
    const base = { provider: "resend", eventId: signed["svix-id"], type: event.type };
    if ((event.type === "email.bounced" || event.type === "email.complained") && event.data.to?.length) {
      return { ...base, effect: { kind: "mail-suppression", addresses: event.data.to, reason: event.type === "email.bounced" ? "bounced" : "complained" } };
    }
    if (event.type === "email.delivered" && event.data.email_id) return { ...base, effect: { kind: "mail-delivered", messageId: event.data.email_id } };
    return { ...base, effect: null };
  };
}
