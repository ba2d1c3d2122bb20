import { isIP } from "node:net";
import { Elysia } from "elysia";
import { countRequest } from "../../traffic.ts";
import { HttpError } from "../errors.ts";

export const API_VERSION = "1.0";
const INCOMING_ID = /^[\w.:-]{1,64}$/;

/** What the plumbing knows about one request, shared by the hooks that need it. */
export interface RequestInfo {
  id: string;
  startedAt: number;
  /** Per TRUST_PROXY: the first X-Forwarded-For address when trusted (and an address), else the socket's peer. */
  ip: string | null;
  /** Set by the auth plugin once a session is recognized. */
  userId?: string;
  /** SHA-256 of the body's canonical JSON, taken when the request carries an Idempotency-Key: "the same body" is the same parameters (decisions §15). */
  bodyDigest?: string;
  /** Set by the error mapper when the answer is a refusal the same request may get past later (TRY_AGAIN). */
  tryAgain?: boolean;
}

const infos = new WeakMap<Request, RequestInfo>();

/**
 * What a request's URL is read against when it has no host: Bun gives a bare path for the URL of a
 * request that named none (HTTP/1.0 may not) or named one that is no host (`Host: a b c`).
 */
const NO_HOST = "http://host.invalid";

/**
 * For each app that serves (its `handler` setting): Elysia by default takes a URL's path from its
 * 11th character on, as if every hostname had four characters or more, so `Host: x` (any client can
 * send it, and a proxy passes it on) routed `/api/locations/abc` to a page and logged
 * `/locations/abc` (found by an attack). Bun's server gives every request's URL as `http://host/…`,
 * so the path is looked for after `http://`; a request made in-process must use http too.
 */
export const ANY_HOSTNAME = { standardHostname: false } as const;

/** The path a request asks for, read as the router reads it. */
export function pathOf(request: Request): string {
  return URL.parse(request.url, NO_HOST)?.pathname ?? "/";
}

export function requestInfo(request: Request): RequestInfo | undefined {
  return infos.get(request);
}

/** Whether a request carries a session (cookie or Bearer), valid or not: its answer is never to be stored. */
export function carriesCredentials(request: Request, sessionCookieName: string): boolean {
  return request.headers.has("authorization") || (request.headers.get("cookie")?.includes(`${sessionCookieName}=`) ?? false);
}

export interface RequestContextOptions {
  trustProxy: boolean;
  /** PUBLIC_URL is https: browsers are told to keep to it (HSTS). */
  https: boolean;
  sessionCookieName: string;
  /** The app's own handler, which a request without a host is handed to again with one (withHost). */
  dispatch?: (request: Request) => Promise<Response>;
}

/** Requests handed to an app again with a host, and the client's address of the one each came as. */
const rehosted = new WeakMap<Request, string | null>();

/**
 * An onRequest hook for an app that serves: without a Host Bun can put in a URL (HTTP/1.0 without
 * one, an empty one, `Host: a b c`), a request's URL is its bare path, which Elysia's router reads
 * wrongly (`/api/locations/abc` got a page: found by a review). Such a request is handed to the app
 * (`dispatch`) again as if it had named this server, with its client's address.
 */
export function withHost(dispatch: (request: Request) => Promise<Response>) {
  return ({ request, server }: { request: Request; server: { requestIP(request: Request): { address: string } | null } | null }) => {
    if (!request.url.startsWith("/")) return;
    // Parsed, so its dot segments are resolved as Bun resolves those of a URL it builds itself; put
    // after the host, not read against it, so `//evil.example/api/cart` stays that path instead of
    // naming a host (found by an attack).
    const again = new Request(new URL(`http://localhost${request.url}`), request);
    rehosted.set(again, server?.requestIP(request)?.address ?? null);
    return dispatch(again);
  };
}

/**
 * First on every request: its id, the client's address, and the headers every answer carries
 * (decisions §7, §10). An answer to a request that carries credentials, and anything under
 * /api/auth, must never be stored by a cache.
 */
export function requestContext({ trustProxy, https, sessionCookieName, dispatch }: RequestContextOptions) {
  const hosted = dispatch ? withHost(dispatch) : null;
  return (
    new Elysia({ name: "plumbing.request-context" })
      .onRequest(({ request, server, set }) => {
        const again = hosted?.({ request, server });
        if (again) return again;
        countRequest();
        const incoming = request.headers.get("x-request-id");
        const first = trustProxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
        // What the proxy wrote is an address; anything else (text, a port, brackets) was not written by it.
        const forwarded = first && isIP(first) ? first : undefined;
        const peer = rehosted.has(request) ? rehosted.get(request) : server?.requestIP(request)?.address;
        const info: RequestInfo = {
          id: incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID(),
          startedAt: performance.now(),
          ip: forwarded || peer || null,
        };
        infos.set(request, info);
        set.headers["x-request-id"] = info.id;
        set.headers["x-api-version"] = API_VERSION;
        set.headers["x-content-type-options"] = "nosniff";
        // Every answer varies by Origin (decisions §10), those refused here before the CORS step too.
        set.headers.vary = "Origin";
        if (https) set.headers["strict-transport-security"] = "max-age=31536000; includeSubDomains";
        if (carriesCredentials(request, sessionCookieName) || pathOf(request).startsWith("/api/auth/")) set.headers["cache-control"] = "no-store";
        // Served, but with no address: its connection was gone before it was read (a client that reset
        // it). Run, it was counted under no client's limit and audited under no address (found by an attack).
        if (server && !peer) throw clientGone();
        // A fragment is never sent: Elysia would route the path with it, and the limits, metrics and log
        // read it without (`/api/health#x` a 404 counted as health's).
        if (request.url.includes("#")) throw new HttpError(400, "A request's target cannot hold a fragment (#)");
      })
      // Its client gone before it was served (a reset, or Bun closing the connection over what followed
      // the body, a chunked body's trailer say: found by an attack), a request is not run: no one would
      // hear how it went, and the client, told 400 by Bun, would try again.
      .onBeforeHandle({ as: "global" }, ({ request }) => {
        if (request.signal.aborted) throw clientGone();
      })
  );
}

/** A request whose client is gone: never answered, so its 400 is for the log and the metrics alone. */
export const clientGone = () => new HttpError(400, "The client closed the connection before the request was served");
