import { type Context, Elysia } from "elysia";
import { type RequestOrigin, USER_AGENT_KEPT_CHARACTERS } from "../../domain/audit.ts";
import { DomainError, unauthenticated } from "../../domain/errors.ts";
import { type AccessRule, PRESET_RULES, allows } from "../../domain/permissions.ts";
import { SESSION_LIFETIME_SECONDS } from "../../domain/session.ts";
import type { Principal } from "../../application/auth/access.ts";
import type { StartedSession } from "../../application/auth/start-session.ts";
import type { UseCases } from "../../application/use-cases.ts";
import { HttpError } from "./errors.ts";
import { requestInfo } from "./plumbing/request-context.ts";
import type { SessionTokens } from "./session.ts";

export interface AuthSettings {
  tokens: SessionTokens;
  cookieName: string;
  secureCookies: boolean;
  /** Origins whose pages may change state with the session cookie (CSRF defence). */
  allowedOrigins: readonly string[];
}

/** The spec's presets, or an explicit rule. "optional" is the separate `optionalAuth` macro. */
export type AuthRule = "required" | "admin" | "staff" | AccessRule;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// How the OpenAPI document states it (decisions §10): the cookie or the same token as Bearer; `{}` is "or none".
const SESSION_REQUIRED: Record<string, string[]>[] = [{ session: [] }, { bearer: [] }];
const SESSION_OPTIONAL: Record<string, string[]>[] = [{}, ...SESSION_REQUIRED];

/** Where a request came from, for the audit entries it writes: the client's address (as the proxy settings read it) and user agent. */
export const originOf = (request: Request): RequestOrigin => ({
  ipAddress: requestInfo(request)?.ip ?? null,
  userAgent: request.headers.get("user-agent")?.slice(0, USER_AGENT_KEPT_CHARACTERS) ?? null,
});

/** The session token a request carries, as Bearer or in the session cookie; Bearer wins. */
function tokenOf(request: Request, cookieName: string): { token: string; bearer: boolean } | null {
  const bearer = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer) return { token: bearer, bearer: true };
  const cookie = new Bun.CookieMap(request.headers.get("cookie") ?? "").get(cookieName);
  return cookie ? { token: cookie, bearer: false } : null;
}

/** Who a request's token says it is (a valid signature, whatever became of the session): for the request log of routes that do not check sessions. */
export function tokenSubject(settings: Pick<AuthSettings, "tokens" | "cookieName">) {
  return async (request: Request): Promise<string | undefined> => {
    const carried = tokenOf(request, settings.cookieName);
    return carried ? (await settings.tokens.verify(carried.token))?.sub : undefined;
  };
}

/** Whether a request carries a token of a live session (the access cache's answer, so cheap when repeated). */
export function hasLiveSession(useCases: UseCases, settings: Pick<AuthSettings, "tokens" | "cookieName">) {
  return async (request: Request): Promise<boolean> => {
    const carried = tokenOf(request, settings.cookieName);
    const claims = carried ? await settings.tokens.verify(carried.token) : null;
    return claims ? (await useCases.resolveSession(claims)) !== null : false;
  };
}

export function authPlugin(useCases: UseCases, settings: AuthSettings) {
  const { tokens, cookieName } = settings;
  const found = new WeakMap<Request, { principal: Principal | null; expires: Date | null }>();

  function refuseForeignOrigin(request: Request) {
    const origin = request.headers.get("origin");
    if (origin !== null && !settings.allowedOrigins.includes(origin)) {
      throw new HttpError(403, "Cross-site request refused", { origin });
    }
  }

  async function authenticate(request: Request): Promise<{ principal: Principal; expires: Date } | null> {
    const carried = tokenOf(request, cookieName);
    if (!carried) return null;
    // Decisions §5: a state change made with the session cookie must come from one of our own pages, or say no Origin.
    if (!carried.bearer && !SAFE_METHODS.has(request.method)) refuseForeignOrigin(request);
    const claims = await tokens.verify(carried.token);
    const principal = claims ? await useCases.resolveSession(claims) : null;
    if (!claims || !principal) return null;
    const info = requestInfo(request);
    if (info) info.userId = principal.user.id;
    return { principal, expires: new Date(claims.exp * 1000) };
  }

  // Written to `set.cookie`, where Elysia's cookie jar writes too, rather than through the jar: a
  // global hook that names `cookie` makes Elysia parse the Cookie header on every request (~12 µs).
  function setCookie(set: Context["set"], value: string, maxAge: number) {
    set.cookie = { ...set.cookie, [cookieName]: { value, httpOnly: true, sameSite: "lax", path: "/", maxAge, secure: settings.secureCookies } };
  }

  return new Elysia({ name: "auth" })
    .derive({ as: "global" }, ({ request, set }) => ({
      origin: originOf(request),
      /** Sets the session cookie for a session just started. */
      async startSession(session: StartedSession): Promise<void> {
        setCookie(set, await tokens.issue(session), SESSION_LIFETIME_SECONDS);
      },
      endSession() {
        setCookie(set, "", 0);
      },
    }))
    .macro({
      // Authentication runs in `transform`, before validation: a caller without a session learns
      // nothing about the request's shape. `resolve` then hands the handler what it found.
      auth: (rule: AuthRule) => ({
        detail: { security: SESSION_REQUIRED },
        async transform({ request }) {
          const principal = (await authenticate(request))?.principal;
          if (!principal) throw unauthenticated();
          const access = typeof rule === "string" ? PRESET_RULES[rule] : rule;
          if (!allows(access, principal.actor)) {
            throw new DomainError("forbidden", "Insufficient permissions", "permission" in access ? { required: access.permission } : undefined);
          }
          found.set(request, { principal, expires: null });
        },
        resolve: ({ request }) => ({ principal: found.get(request)!.principal as Principal }),
      }),
      optionalAuth: {
        detail: { security: SESSION_OPTIONAL },
        async transform({ request }) {
          found.set(request, (await authenticate(request)) ?? { principal: null, expires: null });
        },
        resolve({ request }) {
          const session = found.get(request);
          return { principal: session?.principal ?? null, sessionExpires: session?.expires ?? null };
        },
      },
      /**
       * Decisions §10, login CSRF: sign-in, registration and sign-out are refused from a foreign
       * page, with or without a cookie, so nobody can sign a browser into an account of theirs.
       */
      sameOrigin: {
        transform({ request }) {
          refuseForeignOrigin(request);
        },
      },
    });
}
