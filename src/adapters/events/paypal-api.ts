import type { Clock } from "../../application/ports/system.ts";

export interface PayPalSettings {
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** PAYPAL_API_BASE: PayPal's live API unless told otherwise (its sandbox, a test server). */
  apiBase: string;
}

/** The five headers PayPal signs a delivery with. */
export interface PayPalTransmission {
  transmissionId: string;
  transmissionTime: string;
  transmissionSig: string;
  certUrl: string;
  authAlgo: string;
}

/**
 * PayPal's own check of a delivery (decisions §11: there is no offline one): its
 * verify-webhook-signature API, asked with the transmission headers, the webhook's id and the event
 * exactly as it was delivered (JSON text).
 */
export interface PayPalSignatureCheck {
  verify(transmission: PayPalTransmission, webhookEvent: string): Promise<boolean>;
}

/** A token is used until this long before PayPal says it expires. */
const EXPIRY_MARGIN_MS = 60_000;
const TIMEOUT_MS = 10_000;

interface Token {
  value: string;
  until: number;
}

/**
 * PayPal's verify-webhook-signature API: an OAuth client-credentials token (asked for once however
 * many deliveries need it at the same moment, kept until shortly before it expires, and asked for
 * again when PayPal stops taking it), then POST /v1/notifications/verify-webhook-signature; SUCCESS
 * is a yes, anything else a no. The event goes in as the very text PayPal signed: PayPal checks its
 * bytes, and read and written again it might not be the same. PayPal answering otherwise (down,
 * refusing the credentials) is an error, so the delivery fails and PayPal sends it again.
 */
export function createPayPalSignatureCheck(settings: PayPalSettings, clock: Clock): PayPalSignatureCheck {
  let token: Promise<Token> | null = null;

  async function call(path: string, init: RequestInit): Promise<Response> {
    const response = await fetch(new URL(path, settings.apiBase), { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok && response.status !== 401) throw new Error(`PayPal answered ${response.status} to ${path}`);
    return response;
  }

  async function newToken(): Promise<Token> {
    const response = await call("/v1/oauth2/token", {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`${settings.clientId}:${settings.clientSecret}`)}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    if (!response.ok) throw new Error("PayPal refused the client credentials");
    const answer = (await response.json()) as Record<string, unknown>;
    if (typeof answer.access_token !== "string") throw new Error("PayPal gave no access token");
    return { value: answer.access_token, until: clock.now().getTime() + Number(answer.expires_in ?? 0) * 1000 - EXPIRY_MARGIN_MS };
  }

  /** The token to use: the one held while it is good (and not the one PayPal just refused), else a new one, asked for once. */
  async function accessToken(refused: string | null): Promise<string> {
    for (;;) {
      const current = token;
      const held = current && (await current.catch(() => null));
      if (held && held.value !== refused && held.until > clock.now().getTime()) return held.value;
      // Still what was looked at: no one has asked PayPal for a new token meanwhile.
      if (token === current) {
        token = newToken();
        return (await token).value;
      }
    }
  }

  async function verify(transmission: PayPalTransmission, webhookEvent: string, refused: string | null = null): Promise<boolean> {
    const fields = JSON.stringify({
      auth_algo: transmission.authAlgo,
      cert_url: transmission.certUrl,
      transmission_id: transmission.transmissionId,
      transmission_sig: transmission.transmissionSig,
      transmission_time: transmission.transmissionTime,
      webhook_id: settings.webhookId,
    });
    const used = await accessToken(refused);
    const response = await call("/v1/notifications/verify-webhook-signature", {
      method: "POST",
      headers: { authorization: `Bearer ${used}`, "content-type": "application/json" },
      body: `${fields.slice(0, -1)},"webhook_event":${webhookEvent}}`,
    });
    if (response.status === 401) {
      if (refused !== null) throw new Error("PayPal refused a new access token");
      return verify(transmission, webhookEvent, used);
    }
    const answer = (await response.json()) as Record<string, unknown>;
    return answer.verification_status === "SUCCESS";
  }

  return { verify: (transmission, webhookEvent) => verify(transmission, webhookEvent) };
}
