import { X509Certificate } from "node:crypto";
import type { Clock } from "../../application/ports/system.ts";
import { fetchWithin } from "../bounded-fetch.ts";

/**
 * Where the certificate a PayPal delivery names comes from: its text (PEM) at a URL already known to
 * be PayPal's. Production fetches it (httpsCertificateSource); tests hand over certificates of their own.
 */
export interface PayPalCertificateSource {
  fetch(url: URL): Promise<string>;
}

/**
 * The cert URL, when it is https on paypal.com or a subdomain, as a URL parser reads it (a substring
 * check takes paypal.com.evil.example, evilpaypal.com or https://api.paypal.com@evil.example); no
 * other port, no user info. Null for anything else: nothing is fetched from it.
 */
export function payPalCertificateUrl(text: string): URL | null {
  const url = URL.parse(text);
  if (url?.protocol !== "https:" || url.port !== "" || url.username !== "" || url.password !== "") return null;
  return /^(?:[a-z0-9-]+\.)*paypal\.com$/.test(url.hostname) ? url : null;
}

/** PayPal signs with a few certificates at a time; a few dozen URLs hold them all. */
const CAPACITY = 32;
/** A URL that failed is not asked again for this long: forged deliveries naming it cost one fetch a minute, PayPal's own retry comes later. */
const FAILURE_KEPT_MS = 60_000;

interface Held {
  certificate: Promise<X509Certificate>;
  failedAt: number | null;
}

/**
 * The certificate at a URL, fetched once however many deliveries ask for it at the same moment, and
 * kept for the CAPACITY URLs used last; text that is no certificate is a failure like a fetch that fails.
 */
export function certificateCache(source: PayPalCertificateSource, clock: Clock) {
  const held = new Map<string, Held>();
  return function certificateAt(url: URL): Promise<X509Certificate> {
    const known = held.get(url.href);
    held.delete(url.href);
    if (known && (known.failedAt === null || clock.now().getTime() - known.failedAt < FAILURE_KEPT_MS)) {
      held.set(url.href, known);
      return known.certificate;
    }
    const fresh: Held = { certificate: source.fetch(url).then((pem) => new X509Certificate(pem)), failedAt: null };
    fresh.certificate.catch(() => {
      fresh.failedAt = clock.now().getTime();
    });
    held.set(url.href, fresh);
    // A Map keeps insertion order and every use re-inserts: the first key is the one used longest ago.
    if (held.size > CAPACITY) held.delete(held.keys().next().value as string);
    return fresh.certificate;
  };
}

/** PayPal's certificate is a few kilobytes; its host answers in well under a second. */
const LIMITS = { timeoutMs: 5_000, maxBytes: 64 * 1024 };

/** The certificate fetched over the network: no redirect followed (it could leave paypal.com), within a time and a size. */
export function httpsCertificateSource(limits = LIMITS): PayPalCertificateSource {
  return {
    async fetch(url) {
      const pem = await fetchWithin(url, {}, { signal: AbortSignal.timeout(limits.timeoutMs), maxBytes: limits.maxBytes });
      return new TextDecoder().decode(pem);
    },
  };
}
