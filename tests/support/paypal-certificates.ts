import { readFileSync } from "node:fs";
import type { PayPalCertificateSource } from "../../src/adapters/events/paypal-certificates.ts";

/** The tests' own certificates and keys (tests/support/paypal/README.md says how they were made). */
const fixture = (name: string) => readFileSync(new URL(`./paypal/${name}`, import.meta.url), "utf8");
export const PAYPAL_TEST_CERT = fixture("test-cert.pem");
export const PAYPAL_TEST_KEY = fixture("test-only-private-key.pem");
export const PAYPAL_EXPIRED_CERT = fixture("expired-cert.pem");
export const PAYPAL_EC_CERT = fixture("ec-cert.pem");
export const PAYPAL_EC_KEY = fixture("ec-test-only-private-key.pem");

/** Where the signers say the certificate is, as PayPal's sandbox names its own. */
export const PAYPAL_TEST_CERT_URL = "https://api.sandbox.paypal.com/v1/notifications/certs/CERT-storefront-test";

export type TestCertificateSource = PayPalCertificateSource & {
  /** Every URL fetched, in order, once per fetch. */
  fetched: string[];
  /** Answers wait until the function returned is called. */
  hold(): () => void;
};

/**
 * Stands in for PayPal's certificate host: `pemAt` says what a URL serves (undefined: the fetch
 * fails, as a 404 or a timeout would). Counts every fetch, so a test sees what a delivery cost.
 */
export function testCertificateSource(
  pemAt: (url: string) => string | undefined = (url) => (url === PAYPAL_TEST_CERT_URL ? PAYPAL_TEST_CERT : undefined),
): TestCertificateSource {
  const fetched: string[] = [];
  let held: Promise<void> = Promise.resolve();
  return {
    fetched,
    hold() {
      const { promise, resolve } = Promise.withResolvers<void>();
      held = promise;
      return resolve;
    },
    async fetch(url) {
      fetched.push(url.href);
      await held;
      const pem = pemAt(url.href);
      if (pem === undefined) throw new Error(`No certificate at ${url.href}`);
      return pem;
    },
  };
}
