import { createHmac, sign } from "node:crypto";
import Stripe from "stripe";
import { Webhook } from "svix";
import { PAYPAL_TEST_CERT_URL, PAYPAL_TEST_KEY } from "./paypal-certificates.ts";

/** How each provider signs a delivery, for tests to send what the provider would (and what it would not). */
export type Delivery = { body: string; headers: Record<string, string> };

/** An event is sent as JSON; a string is sent as it is (a body no provider would send, signed all the same). */
const bodyOf = (event: object | string) => (typeof event === "string" ? event : JSON.stringify(event));

export async function signedByStripe(event: object | string, secret: string, timestamp?: number): Promise<Delivery> {
  const body = bodyOf(event);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, ...(timestamp ? { timestamp } : {}) });
  return { body, headers: { "content-type": "application/json", "stripe-signature": signature } };
}

/** EasyPost: hex HMAC-SHA256 of the body with the NFKD-normalized secret (as @easypost/api's validateWebhook checks it). */
export function signedByEasyPost(event: object | string, secret: string): Delivery {
  const body = bodyOf(event);
  const hex = createHmac("sha256", secret.normalize("NFKD")).update(body).digest("hex");
  return { body, headers: { "content-type": "application/json", "x-hmac-signature": `hmac-sha256-hex=${hex}` } };
}

/** Resend signs with Svix: the `svix` package's own signing, with the message id and time given. */
export function signedByResend(event: object | string, secret: string, messageId: string, at = new Date()): Delivery {
  const body = bodyOf(event);
  const signature = new Webhook(secret).sign(messageId, at, body);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "svix-id": messageId,
      "svix-timestamp": String(Math.floor(at.getTime() / 1000)),
      "svix-signature": signature,
    },
  };
}

/** Square: base64 HMAC-SHA256 of the notification URL followed by the body (as the square SDK's WebhooksHelper checks it). */
export function signedBySquare(event: object | string, signatureKey: string, notificationUrl: string): Delivery {
  const body = bodyOf(event);
  const signature = createHmac("sha256", signatureKey)
    .update(notificationUrl + body)
    .digest("base64");
  return { body, headers: { "content-type": "application/json", "x-square-hmacsha256-signature": signature } };
}

/**
 * PayPal, as its SDKs verify it: `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the
 * body, decimal>` signed with RSA-SHA256 (SHA256withRSA) by the key of the certificate at the cert
 * URL; here the tests' own key and certificate. `at` sends another time, `key` signs with another key.
 */
export function signedByPayPal(
  event: object | string,
  webhookId: string,
  { certUrl = PAYPAL_TEST_CERT_URL, at = new Date(), key = PAYPAL_TEST_KEY }: { certUrl?: string; at?: Date; key?: string } = {},
): Delivery {
  const body = bodyOf(event);
  const transmissionId = crypto.randomUUID();
  // PayPal writes its times to the second.
  const transmissionTime = at.toISOString().replace(/\.\d{3}Z$/, "Z");
  const signed = `${transmissionId}|${transmissionTime}|${webhookId}|${Bun.hash.crc32(Buffer.from(body))}`;
  return {
    body,
    headers: {
      "content-type": "application/json",
      "paypal-transmission-id": transmissionId,
      "paypal-transmission-time": transmissionTime,
      "paypal-transmission-sig": sign("sha256", Buffer.from(signed), key).toString("base64"),
      "paypal-cert-url": certUrl,
      "paypal-auth-algo": "SHA256withRSA",
    },
  };
}
