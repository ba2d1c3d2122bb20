import { Elysia } from "elysia";
import { z } from "zod";
import { DomainError } from "../../../domain/errors.ts";
import { IDENTITY_PROVIDERS } from "../../../application/ports/identity.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { HttpError } from "../errors.ts";
import { errorBody, redirectResponse, sessionCookie } from "../schemas.ts";

const STATE_COOKIE = "storefront.oauth-state";
const STATE_MAX_AGE_SECONDS = 10 * 60;
// A browser keeps a cookie per name and path: it is cleared only by a Set-Cookie on the path it was set on.
const STATE_COOKIE_PATH = "/api/auth";

const stateCookie = z.object({ provider: z.enum(IDENTITY_PROVIDERS), state: z.string(), codeVerifier: z.string().nullable() });

const providerParam = z.object({ provider: z.string().max(20) });
// Providers add fields of their own (scope, authuser, prompt, iss...); only these are read.
const callbackFields = z.object({ code: z.string().min(1).max(4096), state: z.string().min(1).max(512), user: z.string().max(4096).optional() });

type Cookies = Record<string, { value?: unknown; set(config: Record<string, unknown>): unknown } | undefined>;

/** Set and cleared with the same attributes, so the clearing answer replaces the very cookie the browser holds. */
function stateCookieAttributes(callbackMethod: "GET" | "POST", secureCookies: boolean) {
  // Apple returns with a cross-site form POST, which only carries SameSite=None cookies (and those must be Secure).
  const crossSite = callbackMethod === "POST";
  return { httpOnly: true, path: STATE_COOKIE_PATH, sameSite: crossSite ? "none" : "lax", secure: crossSite || secureCookies } as const;
}

/** OAuth sign-in: /signin/:provider redirects with state (and PKCE) in a short-lived cookie; the callback finishes it. */
export function oauthRoutes(useCases: UseCases, settings: AuthSettings & { publicUrl: string }) {
  /**
   * An unconfigured provider is a 404. Each provider returns one way only (Apple by form POST, the others by GET). The other way is a
   * 405 before the state is read, so it stays usable; then the state must match the one we kept.
   */
  function savedState(providerId: string, method: "GET" | "POST", cookie: Cookies, returned: string) {
    const { callbackMethod } = useCases.identityProvider(providerId);
    if (callbackMethod !== method) {
      throw new HttpError(405, `Sign-in with ${providerId} returns with ${callbackMethod}`, {
        allow: `${callbackMethod === "GET" ? "GET, HEAD" : "POST"}, OPTIONS`,
      });
    }
    const raw = cookie[STATE_COOKIE]?.value;
    // Spent whatever the outcome, so a state is used once.
    if (raw !== undefined) cookie[STATE_COOKIE]?.set({ ...stateCookieAttributes(callbackMethod, settings.secureCookies), value: "", maxAge: 0 });
    const saved = stateCookie.safeParse(typeof raw === "string" ? safeJson(raw) : raw);
    if (!saved.success || saved.data.provider !== providerId || saved.data.state !== returned) {
      throw new DomainError("auth.invalid_oauth_state", "Invalid or expired sign-in state; please start again");
    }
    return saved.data;
  }

  return new Elysia({ name: "routes.oauth" })
    .use(authPlugin(useCases, settings))
    .get(
      "/signin/:provider",
      ({ params, cookie, redirect }) => {
        const begun = useCases.beginProviderSignIn(params.provider);
        cookie[STATE_COOKIE]?.set({
          ...stateCookieAttributes(begun.callbackMethod, settings.secureCookies),
          value: JSON.stringify({ provider: begun.provider, state: begun.state, codeVerifier: begun.codeVerifier }),
          maxAge: STATE_MAX_AGE_SECONDS,
        });
        return redirect(begun.url.toString(), 302);
      },
      {
        params: providerParam,
        response: { 302: redirectResponse("to the provider's sign-in page"), 404: errorBody },
        detail: { summary: "Start sign-in with google, github, facebook or apple (302)" },
      },
    )
    .get(
      "/callback/:provider",
      async ({ params, query, cookie, origin, startSession, redirect }) => {
        const saved = savedState(params.provider, "GET", cookie as Cookies, query.state);
        await startSession(
          await useCases.finishProviderSignIn({ providerId: params.provider, code: query.code, codeVerifier: saved.codeVerifier, extra: {} }, origin),
        );
        return redirect(`${settings.publicUrl}/`, 302);
      },
      {
        params: providerParam,
        query: callbackFields,
        response: { 302: redirectResponse("to the shop, signed in"), 400: errorBody, 404: errorBody, 405: errorBody },
        detail: { summary: "Return from the identity provider (google, github, facebook)", ...sessionCookie("set") },
      },
    )
    .post(
      "/callback/:provider",
      async ({ params, body, cookie, origin, startSession, redirect }) => {
        const saved = savedState(params.provider, "POST", cookie as Cookies, body.state);
        const extra: Record<string, string> = body.user ? { user: body.user } : {};
        await startSession(
          await useCases.finishProviderSignIn({ providerId: params.provider, code: body.code, codeVerifier: saved.codeVerifier, extra }, origin),
        );
        return redirect(`${settings.publicUrl}/`, 302);
      },
      {
        params: providerParam,
        body: callbackFields,
        parse: "urlencoded",
        response: { 302: redirectResponse("to the shop, signed in"), 400: errorBody, 404: errorBody, 405: errorBody },
        detail: { summary: "Return from Apple (form POST)", ...sessionCookie("set") },
      },
    );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
