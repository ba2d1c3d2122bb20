/**
 * A small PayPal-shaped server for tests: OAuth client credentials at /v1/oauth2/token and
 * /v1/notifications/verify-webhook-signature, as PayPal's REST API answers them. A delivery's
 * signature holds when its transmission signature is GOOD_SIGNATURE (the real check is PayPal's
 * own, with its certificates); the server counts every call, so tests can see none was made.
 */
export const GOOD_SIGNATURE = "signed-by-paypal";

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
        if (request.headers.get("authorization") !== expected || text !== "grant_type=client_credentials") return Response.json({ error: "invalid_client" }, { status: 401 });
        const token = `A21AA${crypto.randomUUID().replaceAll("-", "")}`;
        tokens.add(token);
        return Response.json({ scope: "https://uri.paypal.com/services/webhooks", access_token: token, token_type: "Bearer", app_id: "APP-80W284485P519543T", expires_in: 32400, nonce: crypto.randomUUID() });
      }
      if (path === "/v1/notifications/verify-webhook-signature") {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        if (!tokens.has(token)) return Response.json({ name: "AUTHENTICATION_FAILURE" }, { status: 401 });
        const body = JSON.parse(text);
        const valid = body.webhook_id === credentials.webhookId && body.transmission_sig === GOOD_SIGNATURE && typeof body.webhook_event?.id === "string";
        return Response.json({ verification_status: valid ? "SUCCESS" : "FAILURE" });
      }
      return Response.json({ name: "RESOURCE_NOT_FOUND" }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    ran: (path: string) => calls.filter((c) => c.path === path).length,
    close: () => server.stop(true),
  };
}

export type PayPalServer = Awaited<ReturnType<typeof startPayPalServer>>;
