import { z } from "zod";
import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import { PROVIDER_ID, eventType, hmacSha256, invalidSignature, printable, readJson, readPart, sameSignature } from "./read.ts";

const eventShape = z.object({ id: z.string().regex(PROVIDER_ID), description: eventType, result: z.unknown().optional() });
const trackerShape = z.object({ tracking_code: z.string().regex(PROVIDER_ID), status: printable(100).nullish() }).passthrough();

/**
 * EasyPost (decisions §11): `X-Hmac-Signature: hmac-sha256-hex=<hex>`, the HMAC-SHA256 of the raw
 * body keyed with the NFKD-normalized secret (as @easypost/api's validateWebhook computes it; the
 * SDK itself is not taken in for one HMAC), compared in constant time. `tracker.updated` reports a
 * parcel's status by its tracking code; other events are not acted on, so only their id and type are read.
 */
export function easypostWebhookVerifier(secret: string | null): WebhookVerifier | null {
  if (!secret) return null;
  const key = secret.normalize("NFKD");
  return async (payload, headers) => {
    const expected = `hmac-sha256-hex=${hmacSha256(key, payload).toString("hex")}`;
    if (!sameSignature(expected, headers.get("x-hmac-signature") ?? "")) throw invalidSignature();
    const event = readJson(payload, eventShape, "an EasyPost event");
    const base = { provider: "easypost", eventId: event.id, type: event.description };
    if (event.description !== "tracker.updated") return { ...base, meaning: null };
    const tracker = readPart(event.result, trackerShape, "an EasyPost tracker");
    return { ...base, meaning: { kind: "shipment", trackingCode: tracker.tracking_code, status: tracker.status ?? "unknown" } };
  };
}
