import { createHmac } from "node:crypto";

/**
 * A small PayPal-shaped server for tests: OAuth client credentials at /v1/oauth2/token and
 * /v1/notifications/verify-webhook-signature, as PayPal's REST API answers them. PayPal signs
 * `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the event's bytes>` with its
 * certificate's RSA key; this server does the same with an HMAC key (paypalSignature), so a
 * signature holds only for the very bytes that were signed. Like PayPal, it reads the event's bytes
 * as the client sent them (`webhook_event`, the request's last field). It counts every call, so
 * tests can see none was made, and can refuse the next calls' tokens as if they had expired.
 */
const SIGNING_KEY = "paypal-test-signing-key";

export function paypalSignature(transmissionId: string, transmissionTime: string, webhookId: string, eventBytes: string): string {
  return createHmac("sha256", SIGNING_KEY)
    .update(`${transmissionId}|${transmissionTime}|${webhookId}|${Bun.hash.crc32(eventBytes)}`)
    .digest("base64");
}

const EVENT_FIELD = ',"webhook_event":';

export async function startPayPalServer(credentials: { clientId: string; clientSecret: string; webhookId: string }) {
  const tokens = new Set<string>();
  const calls: Array<{ path: string; body: any }> = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      calls.push({ path, body: text.startsWith("{") ? JSON.parse(text) : text });
      if (path === "/v1/oauth2/token") {
        const expected = `Basic ${btoa(`${credentials.clientId}:${credentials.clientSecret}`)}`;
        if (request.headers.get("authorization") !== expected || text !== "grant_type=client_credentials")
          return Response.json({ error: "invalid_client" }, { status: 401 });
        const token = `A21AA${crypto.randomUUID().replaceAll("-", "")}`;
        tokens.add(token);
        return Response.json({
          scope: "https://uri.paypal.com/services/webhooks",
          access_token: token,
          token_type: "Bearer",
          app_id: "APP-80W284485P519543T",
          expires_in: 32400,
          nonce: crypto.randomUUID(),
        });
      }
      if (path === "/v1/notifications/verify-webhook-signature") {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        if (!tokens.has(token)) return Response.json({ name: "AUTHENTICATION_FAILURE" }, { status: 401 });
        const body = JSON.parse(text);
        const eventBytes = text.slice(text.indexOf(EVENT_FIELD) + EVENT_FIELD.length, -1);
        const expected = paypalSignature(body.transmission_id, body.transmission_time, credentials.webhookId, eventBytes);
        const valid = body.webhook_id === credentials.webhookId && body.transmission_sig === expected && body.auth_algo === "SHA256withRSA";
        return Response.json({ verification_status: valid ? "SUCCESS" : "FAILURE" });
      }
      return Response.json({ name: "RESOURCE_NOT_FOUND" }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    ran: (path: string) => calls.filter((c) => c.path === path).length,
    /** Every token handed out so far stops being taken, as when PayPal expires one early. */
    expireTokens: () => tokens.clear(),
    close: () => server.stop(true),
  };
}

export type PayPalServer = Awaited<ReturnType<typeof startPayPalServer>>;
