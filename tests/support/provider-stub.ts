/**
 * Stands in for Google, GitHub, Facebook and Apple at the HTTP boundary: the adapters and arctic
 * run unchanged and their requests (arctic sends token requests with the global fetch) reach
 * handlers the test supplies. Requests to any other host still go to the real fetch.
 */

const PROVIDER_HOSTS = new Set([
  "accounts.google.com",
  "oauth2.googleapis.com",
  "www.googleapis.com",
  "openidconnect.googleapis.com",
  "github.com",
  "api.github.com",
  "www.facebook.com",
  "graph.facebook.com",
  "appleid.apple.com",
]);

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The form-encoded body, as token requests carry; null for any other body. */
  form: URLSearchParams | null;
  /** The caller's signal: a handler that forwards the request (to an unruly host) passes it on, as fetch would honour it. */
  signal: AbortSignal;
}

/** Keyed by origin and path, e.g. "https://oauth2.googleapis.com/token". */
export type ProviderHandlers = Record<string, (request: RecordedRequest) => Response | Promise<Response>>;

export interface ProviderStub {
  requests: RecordedRequest[];
  /** The recorded requests to one endpoint (origin and path). */
  to(endpoint: string): RecordedRequest[];
  restore(): void;
}

export function stubProviders(handlers: ProviderHandlers): ProviderStub {
  const realFetch = globalThis.fetch;
  const requests: RecordedRequest[] = [];
  const stub = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
    const url = new URL(request.url);
    if (!PROVIDER_HOSTS.has(url.hostname)) return realFetch(input, init);
    const isForm = request.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded");
    const recorded: RecordedRequest = {
      method: request.method,
      url,
      headers: request.headers,
      form: isForm ? new URLSearchParams(await request.text()) : null,
      signal: request.signal,
    };
    requests.push(recorded);
    const handler = handlers[url.origin + url.pathname];
    // Never let a test talk to a real provider by accident.
    return handler ? handler(recorded) : new Response(`No stub for ${request.method} ${url}`, { status: 501 });
  };
  globalThis.fetch = Object.assign(stub, { preconnect: realFetch.preconnect });
  return {
    requests,
    to: (endpoint) => requests.filter((r) => r.url.origin + r.url.pathname === endpoint),
    restore: () => {
      globalThis.fetch = realFetch;
    },
  };
}

export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

/** A token endpoint's answer; `id_token` only when claims are given. */
export function tokenResponse(claims?: Record<string, unknown>): Response {
  return json({
    access_token: "access-token-from-provider",
    token_type: "Bearer",
    expires_in: 3600,
    ...(claims ? { id_token: fakeIdToken(claims) } : {}),
  });
}

/** Unsigned in substance: arctic's decodeIdToken trusts a token that came straight from the token endpoint. */
export function fakeIdToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.${Buffer.from("not-a-signature").toString("base64url")}`;
}

/** A fresh P-256 key as Apple hands it out (PKCS#8 PEM), and its public half to check signatures with. */
export async function appleSigningKey(): Promise<{ pem: string; publicKey: CryptoKey }> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const der = Buffer.from(await crypto.subtle.exportKey("pkcs8", pair.privateKey)).toString("base64");
  const lines = der.match(/.{1,64}/g) ?? [];
  return { pem: `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`, publicKey: pair.publicKey };
}

/** How the attack's stand-in misbehaved: no answer at all, a byte at a time for ever, or 50 MB (chunked, or with its length). */
export type Unruly = "hang" | "drip" | "huge" | "huge-length";

/**
 * A real local server standing in for a provider that misbehaves (stubProviders' handlers forward
 * to it with the caller's signal), counting what it sent so a test can see a body left unread.
 */
export function startUnrulyProvider() {
  const sent: Record<string, number> = {};
  /** Settled when the last answer of each kind stopped being sent: its reader gone, or all of it sent. */
  const ended: Record<string, PromiseWithResolvers<void>> = {};
  const never = Promise.withResolvers<void>();
  const chunk = new TextEncoder().encode("A".repeat(64 * 1024));
  // Made once, not per answer: filling 50 MB took seconds on a loaded VM, inside the time the test
  // gives the shop to answer (found by a run under load).
  const huge = new Blob([new Uint8Array(50 * 1024 * 1024).fill(65)]);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname.slice(1) as Unruly;
      sent[path] = 0;
      const end = (ended[path] = Promise.withResolvers<void>());
      const count = (bytes: Uint8Array) => ((sent[path] = (sent[path] ?? 0) + bytes.byteLength), bytes);
      const start = new TextEncoder().encode('{"access_token":"');
      if (path === "hang") await never.promise;
      if (path === "huge-length") return new Response(huge, { headers: { "content-type": "application/json" } });
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(count(start)),
        async pull(controller) {
          if (path === "drip") await Bun.sleep(50);
          if ((sent[path] ?? 0) > 50 * 1024 * 1024) {
            end.resolve();
            return controller.close();
          }
          controller.enqueue(count(path === "drip" ? chunk.subarray(0, 1) : chunk));
        },
        cancel: () => end.resolve(),
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    },
  });
  return {
    /** A handler answering as this host does for `how`. */
    answers: (how: Unruly) => (request: RecordedRequest) => fetch(`http://127.0.0.1:${server.port}/${how}`, { signal: request.signal }),
    sent: (how: Unruly) => sent[how] ?? 0,
    /** Once the last answer of this kind has stopped being sent (a streamed one: drip, huge). */
    ended: (how: Unruly) => ended[how]?.promise ?? Promise.resolve(),
    stop() {
      never.resolve();
      server.stop(true);
    },
  };
}
