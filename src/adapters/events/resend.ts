// svix's own entry loads its whole API client, a tenth of a second of every start (a fifth of
// the server's), for the one class a verifier needs: taken from its module (svix declares no exports map).
import { Webhook, WebhookVerificationError } from "svix/dist/webhook";
import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import { PROVIDER_ID, eventType, invalidSignature, malformed, readJson, readPart } from "./read.ts";

const eventShape = z.object({ type: eventType, data: z.unknown().optional() });
/**
 * An address as a bounce names it, read leniently (the provider's word decides, not the shop's idea
 * of a valid address): a local part and a domain, no control characters, well-formed text.
 */
const address = z
  .string()
  .max(320)
  .regex(/^[^\x00-\x1f\x7f@]+@[^\x00-\x1f\x7f@]+$/, "is not an address")
  .refine((value) => value.isWellFormed(), "is not well-formed text");
const bounceShape = z.object({ to: z.array(address).min(1).max(100) });
const deliveryShape = z.object({ email_id: z.string().regex(PROVIDER_ID) });

/**
 * Resend (decisions §11) signs with Svix: `svix-id`, `svix-timestamp` and `svix-signature`, checked
 * by the `svix` package with its five-minute tolerance. The event id is `svix-id`. Bounces and
 * complaints suppress their addresses; a delivery is marked on its message; others are not acted on.
 */
export function resendWebhookVerifier(secret: string | null): WebhookVerifier | null {
  if (!secret) return null;
  const svix = new Webhook(secret);
  return async (payload, headers) => {
    const signed = {
      "svix-id": headers.get("svix-id") ?? "",
      "svix-timestamp": headers.get("svix-timestamp") ?? "",
      "svix-signature": headers.get("svix-signature") ?? "",
    };
    try {
      svix.verify(Buffer.from(payload), signed);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw invalidSignature();
      // The signature held; svix then parses the body, and it is not JSON.
      if (error instanceof SyntaxError) throw malformed("the signed body is not JSON");
      throw error;
    }
    if (!PROVIDER_ID.test(signed["svix-id"])) throw invalidSignature();
    const event = readJson(payload, eventShape, "a Resend event");
    const base = { provider: "resend", eventId: signed["svix-id"], type: event.type };
    if (event.type === "email.bounced" || event.type === "email.complained") {
      const { to } = readPart(event.data, bounceShape, "a Resend bounce or complaint");
      return { ...base, meaning: { kind: "mail-suppression", addresses: to, reason: event.type === "email.bounced" ? "bounced" : "complained" } };
    }
    if (event.type === "email.delivered")
      return { ...base, meaning: { kind: "mail-delivered", messageId: readPart(event.data, deliveryShape, "a Resend delivery").email_id } };
    return { ...base, meaning: null };
  };
}
