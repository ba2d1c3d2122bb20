import type { PayPalSignatureCheck } from "../../application/ports/events.ts";
import type { Clock } from "../../application/ports/system.ts";

export interface PayPalSettings {
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** PAYPAL_API_BASE: PayPal's live API unless told otherwise (its sandbox, a test server). */
  apiBase: string;
}

/** A token is used until this long before PayPal says it expires. */
const EXPIRY_MARGIN_MS = 60_000;
const TIMEOUT_MS = 10_000;

/**
 * PayPal's verify-webhook-signature API: an OAuth client-credentials token (kept until shortly
 * before it expires), then POST /v1/notifications/verify-webhook-signature; SUCCESS is a yes,
 * anything else a no. PayPal answering otherwise (down, refusing the credentials) is an error,
 * so the delivery fails and PayPal sends it again.
 */
export function createPayPalSignatureCheck(settings: PayPalSettings, clock: Clock): PayPalSignatureCheck {
  let token: { value: string; until: number } | null = null;

  async function call(path: string, init: RequestInit): Promise<Record<string, unknown>> {
    const response = await fetch(new URL(path, settings.apiBase), { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) throw new Error(`PayPal answered ${response.status} to ${path}`);
    return (await response.json()) as Record<string, unknown>;
  }

  async function accessToken(): Promise<string> {
    if (token && token.until > clock.now().getTime()) return token.value;
    const answer = await call("/v1/oauth2/token", {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`${settings.clientId}:${settings.clientSecret}`)}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    if (typeof answer.access_token !== "string") throw new Error("PayPal gave no access token");
    token = { value: answer.access_token, until: clock.now().getTime() + Number(answer.expires_in ?? 0) * 1000 - EXPIRY_MARGIN_MS };
    return token.value;
  }

  return {
    async verify(transmission, webhookEvent) {
      const answer = await call("/v1/notifications/verify-webhook-signature", {
        method: "POST",
        headers: { authorization: `Bearer ${await accessToken()}`, "content-type": "application/json" },
        body: JSON.stringify({
          auth_algo: transmission.authAlgo,
          cert_url: transmission.certUrl,
          transmission_id: transmission.transmissionId,
          transmission_sig: transmission.transmissionSig,
          transmission_time: transmission.transmissionTime,
          webhook_id: settings.webhookId,
          webhook_event: webhookEvent,
        }),
      });
      return answer.verification_status === "SUCCESS";
    },
  };
}
