import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { Webhook } from "svix";

/** How each provider signs a delivery, for tests to send what the provider would (and what it would not). */
export type Delivery = { body: string; headers: Record<string, string> };

export async function signedByStripe(event: object, secret: string, timestamp?: number): Promise<Delivery> {
  const body = JSON.stringify(event);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, ...(timestamp ? { timestamp } : {}) });
  return { body, headers: { "content-type": "application/json", "stripe-signature": signature } };
}

/** EasyPost: hex HMAC-SHA256 of the body with the NFKD-normalized secret (as @easypost/api's validateWebhook checks it). */
export function signedByEasyPost(event: object, secret: string): Delivery {
  const body = JSON.stringify(event);
  const hex = createHmac("sha256", secret.normalize("NFKD")).update(body).digest("hex");
  return { body, headers: { "content-type": "application/json", "x-hmac-signature": `hmac-sha256-hex=${hex}` } };
}

/** Resend signs with Svix: the `svix` package's own signing, with the message id and time given. */
export function signedByResend(event: object, secret: string, messageId: string, at = new Date()): Delivery {
  const body = JSON.stringify(event);
  const signature = new Webhook(secret).sign(messageId, at, body);
  return { body, headers: { "content-type": "application/json", "svix-id": messageId, "svix-timestamp": String(Math.floor(at.getTime() / 1000)), "svix-signature": signature } };
}

/** Square: base64 HMAC-SHA256 of the notification URL followed by the body (as the square SDK's WebhooksHelper checks it). */
export function signedBySquare(event: object, signatureKey: string, notificationUrl: string): Delivery {
  const body = JSON.stringify(event);
  const signature = createHmac("sha256", signatureKey).update(notificationUrl + body).digest("base64");
  return { body, headers: { "content-type": "application/json", "x-square-hmacsha256-signature": signature } };
}

/** PayPal: the five transmission headers; whether they hold is the PayPal-shaped server's to say (see paypal-server.ts). */
export function signedByPayPal(event: object, signature: string, certUrl = "https://api.paypal.com/v1/notifications/certs/CERT-360caa42"): Delivery {
  return {
    body: JSON.stringify(event),
    headers: {
      "content-type": "application/json",
      "paypal-transmission-id": crypto.randomUUID(),
      "paypal-transmission-time": new Date().toISOString(),
      "paypal-transmission-sig": signature,
      "paypal-cert-url": certUrl,
      "paypal-auth-algo": "SHA256withRSA",
    },
  };
}
