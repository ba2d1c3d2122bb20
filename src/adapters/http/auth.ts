import { Elysia } from "elysia";
import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type AccessRule, PRESET_RULES, allows } from "../../domain/permissions.ts";
import type { Principal, SessionUser } from "../../application/auth/access.ts";
import type { UseCases } from "../../application/use-cases.ts";
import { HttpError } from "./errors.ts";
import { SESSION_MAX_AGE_SECONDS, type SessionTokens } from "./session.ts";

export interface AuthSettings {
  tokens: SessionTokens;
  cookieName: string;
  secureCookies: boolean;
  /** Origins whose pages may change state with the session cookie (CSRF defence). */
  allowedOrigins: readonly string[];
  trustProxy: boolean;
}

/** The spec's presets, or an explicit rule. "optional" is the separate `optionalAuth` macro. */
export type AuthRule = "required" | "admin" | "staff" | AccessRule;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const unauthorized = () => new DomainError("auth.unauthenticated", "Unauthorized - authentication required");

type CookieJar = Record<string, { value?: unknown; set(options: Record<string, unknown>): unknown; remove(): unknown }>;

export function authPlugin(useCases: UseCases, settings: AuthSettings) {
  const { tokens, cookieName } = settings;

  /** Decisions §5: a state change made with the session cookie must come from one of our own pages, or say no Origin. */
  function refuseCrossSite(request: Request) {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.get("origin");
    if (origin !== null && !settings.allowedOrigins.includes(origin)) {
      throw new HttpError(403, "Cross-site request refused", { origin });
    }
  }

  async function authenticate(request: Request, cookie: CookieJar): Promise<{ principal: Principal; expires: Date } | null> {
    const header = request.headers.get("authorization");
    const bearer = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    const fromCookie = cookie[cookieName]?.value;
    const token = bearer ?? (typeof fromCookie === "string" && fromCookie ? fromCookie : undefined);
    if (!token) return null;
    if (!bearer) refuseCrossSite(request);
    const claims = await tokens.verify(token);
    const principal = claims ? await useCases.resolveSession(claims) : null;
    return claims && principal ? { principal, expires: new Date(claims.exp * 1000) } : null;
  }

  function originOf(request: Request, server: { requestIP(r: Request): { address: string } | null } | null): RequestOrigin {
    const forwarded = settings.trustProxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
    return {
      ipAddress: forwarded || server?.requestIP(request)?.address || null,
      userAgent: request.headers.get("user-agent"),
    };
  }

  return new Elysia({ name: "auth" })
    .derive({ as: "global" }, ({ request, server, cookie }) => ({
      origin: originOf(request, server),
      /** Sets the session cookie for this user (and returns when it expires). */
      async startSession(user: SessionUser, issuedAt: Date): Promise<Date> {
        const { token, expires } = await tokens.issue(user, issuedAt);
        (cookie as unknown as CookieJar)[cookieName]?.set({
          value: token,
          httpOnly: true,
          sameSite: "lax",
          path: "/",
          maxAge: SESSION_MAX_AGE_SECONDS,
          secure: settings.secureCookies,
        });
        return expires;
      },
      endSession() {
        (cookie as unknown as CookieJar)[cookieName]?.set({
          value: "",
          httpOnly: true,
          sameSite: "lax",
          path: "/",
          maxAge: 0,
          secure: settings.secureCookies,
        });
      },
    }))
    .macro({
      auth: (rule: AuthRule) => ({
        async resolve({ request, cookie }) {
          const principal = (await authenticate(request, cookie as unknown as CookieJar))?.principal;
          if (!principal) throw unauthorized();
          const access = typeof rule === "string" ? PRESET_RULES[rule] : rule;
          if (!allows(access, principal.actor)) {
            throw new DomainError("forbidden", "Insufficient permissions", "permission" in access ? { required: access.permission } : undefined);
          }
          return { principal };
        },
      }),
      /** For routes that act on the session cookie without reading the session (sign-out): the CSRF check alone. */
      sessionCookieWrite: {
        beforeHandle({ request, cookie }) {
          if ((cookie as unknown as CookieJar)[cookieName]?.value) refuseCrossSite(request);
        },
      },
      optionalAuth: {
        async resolve({ request, cookie }) {
          const session = await authenticate(request, cookie as unknown as CookieJar);
          return { principal: session?.principal ?? null, sessionExpires: session?.expires ?? null };
        },
      },
    });
}
