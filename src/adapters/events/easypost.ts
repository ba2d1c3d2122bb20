import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import { PROVIDER_ID, hmacSha256, invalidSignature, readJson, sameSignature } from "./read.ts";

const eventShape = z.object({
  id: z.string().regex(PROVIDER_ID),
  description: z.string().min(1).max(255),
  result: z.object({ tracking_code: z.string().regex(PROVIDER_ID).nullish(), status: z.string().max(100).nullish() }).passthrough().nullish(),
});

/**
 * EasyPost (decisions §11): `X-Hmac-Signature: hmac-sha256-hex=<hex>`, the HMAC-SHA256 of the raw
 * body keyed with the NFKD-normalized secret (as @easypost/api's validateWebhook computes it; the
 * SDK itself is not taken in for one HMAC), compared in constant time. `tracker.updated` reports a
 * parcel's status by its tracking code; other events are not acted on.
 */
export function easypostWebhookVerifier(secret: string | null): WebhookVerifier | null {
  if (!secret) return null;
  const key = secret.normalize("NFKD");
  return async (payload, headers) => {
    const expected = `hmac-sha256-hex=${hmacSha256(key, payload).toString("hex")}`;
    if (!sameSignature(expected, headers.get("x-hmac-signature") ?? "")) throw invalidSignature();
    const event = readJson(payload, eventShape, "an EasyPost event");
    const trackingCode = event.result?.tracking_code;
    const acted = event.description === "tracker.updated" && trackingCode;
    return {
      provider: "easypost",
      eventId: event.id,
      type: event.description,
      effect: acted ? { kind: "shipment", trackingCode, status: event.result?.status ?? "unknown" } : null,
    };
  };
}
