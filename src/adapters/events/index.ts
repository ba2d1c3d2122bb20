import type { WebhookVerifier } from "../../application/events/webhook-event.ts";
import type { Clock } from "../../application/ports/system.ts";
import { easypostWebhookVerifier } from "./easypost.ts";
import { httpsCertificateSource } from "./paypal-certificates.ts";
import { paypalWebhookVerifier } from "./paypal.ts";
import { resendWebhookVerifier } from "./resend.ts";
import { squareWebhookVerifier } from "./square.ts";
import { stripeWebhookVerifier } from "./stripe.ts";

export const WEBHOOK_PROVIDERS = ["stripe", "paypal", "square", "easypost", "resend"] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

/** Each provider's webhook settings (decisions §11); a null one is not configured. */
export interface WebhookSettings {
  stripeWebhookSecret: string | null;
  webhooks: {
    easypostSecret: string | null;
    resendSecret: string | null;
    square: { signatureKey: string; notificationUrl: string } | null;
    paypal: { webhookId: string } | null;
  };
}

/** Each provider's verifier, from its settings; null where it is not configured (its webhook answers 503). */
export function webhookVerifiers(config: WebhookSettings, clock: Clock): Record<WebhookProvider, WebhookVerifier | null> {
  const { webhooks } = config;
  return {
    stripe: stripeWebhookVerifier(config.stripeWebhookSecret, clock),
    paypal: paypalWebhookVerifier(webhooks.paypal ? { webhookId: webhooks.paypal.webhookId, certificates: httpsCertificateSource() } : null, clock),
    square: webhooks.square ? squareWebhookVerifier(webhooks.square.signatureKey, webhooks.square.notificationUrl) : null,
    easypost: easypostWebhookVerifier(webhooks.easypostSecret),
    resend: resendWebhookVerifier(webhooks.resendSecret),
  };
}
