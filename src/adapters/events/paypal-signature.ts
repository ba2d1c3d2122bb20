import { verify } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Clock } from "../../application/ports/system.ts";
import { type PayPalCertificateSource, certificateCache, payPalCertificateUrl } from "./paypal-certificates.ts";
import { invalidSignature } from "./read.ts";

export interface PayPalWebhookSettings {
  /** PAYPAL_WEBHOOK_ID: PayPal signs it into every delivery of this webhook, so another webhook's deliveries do not hold here. */
  webhookId: string;
  certificates: PayPalCertificateSource;
}

/** How old (or how far ahead) a delivery's transmission time may be, as Stripe's and Svix's tolerance. */
const TOLERANCE_MS = 5 * 60_000;
/** The one algorithm PayPal signs webhooks with: RSA (PKCS #1 v1.5) over SHA-256. */
const AUTH_ALGO = "SHA256withRSA";

/** The five headers, present, with PayPal's algorithm, a cert URL on paypal.com and a time within five minutes. */
function transmissionOf(headers: Headers, now: number) {
  const header = (name: string) => headers.get(`paypal-${name}`) ?? "";
  const [id, time, signature] = [header("transmission-id"), header("transmission-time"), header("transmission-sig")];
  const url = payPalCertificateUrl(header("cert-url"));
  const fresh = Math.abs(now - Date.parse(time)) <= TOLERANCE_MS;
  if (!id || !signature || !url || header("auth-algo") !== AUTH_ALGO || !fresh) throw invalidSignature();
  return { id, time, signature, url };
}

/**
 * PayPal's offline check (decisions §15, as its SDKs do it): PayPal signs
 * `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the raw body, decimal>` with the key of
 * the certificate the delivery names. Everything that needs no fetch is checked first; the certificate
 * comes through the cache (one fetch per URL), must be RSA and valid now. Throws webhook.invalid_signature.
 */
export function payPalSignatureCheck(settings: PayPalWebhookSettings, clock: Clock) {
  const certificateAt = certificateCache(settings.certificates, clock);
  return async (payload: Uint8Array, headers: Headers): Promise<void> => {
    const transmission = transmissionOf(headers, clock.now().getTime());
    const certificate = await certificateAt(transmission.url).catch(() => {
      throw invalidSignature();
    });
    const now = clock.now();
    if (now < certificate.validFromDate || now > certificate.validToDate) throw invalidSignature();
    if (certificate.publicKey.asymmetricKeyType !== "rsa") throw invalidSignature();
    const signed = `${transmission.id}|${transmission.time}|${settings.webhookId}|${crc32(payload)}`;
    if (!verify("sha256", Buffer.from(signed), certificate.publicKey, Buffer.from(transmission.signature, "base64"))) throw invalidSignature();
  };
}
