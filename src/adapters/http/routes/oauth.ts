import { Elysia } from "elysia";
import { z } from "zod";
import { generateCodeVerifier, generateState } from "arctic";
import { DomainError } from "../../../domain/errors.ts";
import type { SessionUser } from "../../../application/auth/access.ts";
import { IDENTITY_PROVIDERS, type IdentityProvider, type ProviderId } from "../../../application/ports/identity.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { HttpError } from "../errors.ts";
import { errorBody, redirectResponse } from "../schemas.ts";

const STATE_COOKIE = "storefront.oauth-state";
const STATE_MAX_AGE_SECONDS = 10 * 60;

const stateCookie = z.object({ provider: z.enum(IDENTITY_PROVIDERS), state: z.string(), codeVerifier: z.string().nullable() });

const providerParam = z.object({ provider: z.string().max(20) });
const callbackFields = z.object({ code: z.string().min(1).max(4096), state: z.string().min(1).max(512), user: z.string().max(4096).optional() });

/** OAuth sign-in: /signin/:provider redirects with state (and PKCE) in a short-lived cookie; the callback finishes it. */
export function oauthRoutes(useCases: UseCases, settings: AuthSettings & { publicUrl: string }) {
  function providerOf(id: string): IdentityProvider {
    const provider = useCases.identityProviders.get(id as ProviderId);
    if (!provider) throw new DomainError("auth.provider_not_configured", `Sign-in with ${id} is not available`);
    return provider;
  }

  return new Elysia({ name: "routes.oauth" })
    .use(authPlugin(useCases, settings))
    .get(
      "/signin/:provider",
      ({ params, cookie, redirect }) => {
        const provider = providerOf(params.provider);
        const state = generateState();
        const codeVerifier = provider.usesPkce ? generateCodeVerifier() : null;
        // Apple returns with a cross-site form POST, which only carries SameSite=None cookies.
        const crossSite = provider.callbackMethod === "POST";
        cookie[STATE_COOKIE]?.set({
          value: JSON.stringify({ provider: provider.id, state, codeVerifier }),
          httpOnly: true,
          path: "/api/auth",
          maxAge: STATE_MAX_AGE_SECONDS,
          sameSite: crossSite ? "none" : "lax",
          secure: crossSite || settings.secureCookies,
        });
        return redirect(provider.authorizationUrl(state, codeVerifier).toString(), 302);
      },
      {
        params: providerParam,
        response: { 302: redirectResponse("to the provider's sign-in page"), 404: errorBody },
        detail: { summary: "Start sign-in with google, github, facebook or apple (302)" },
      },
    )
    .get("/callback/:provider", (ctx) => finish(ctx, "GET", ctx.query), {
      params: providerParam,
      query: callbackFields,
      response: { 302: redirectResponse("to the shop, signed in"), 400: errorBody, 404: errorBody, 405: errorBody },
      detail: { summary: "Return from the identity provider (google, github, facebook)" },
    })
    .post("/callback/:provider", (ctx) => finish(ctx, "POST", ctx.body), {
      params: providerParam,
      body: callbackFields,
      parse: "urlencoded",
      response: { 302: redirectResponse("to the shop, signed in"), 400: errorBody, 404: errorBody, 405: errorBody },
      detail: { summary: "Return from Apple (form POST)" },
    });

  async function finish(
    ctx: {
      params: { provider: string };
      cookie: Record<string, { value?: unknown; remove(): unknown } | undefined>;
      origin: Parameters<UseCases["signInWithProvider"]>[1];
      startSession: (user: SessionUser, at: Date) => Promise<Date>;
      redirect: (url: string, status?: 302) => Response;
    },
    method: IdentityProvider["callbackMethod"],
    fields: z.infer<typeof callbackFields>,
  ) {
    const provider = providerOf(ctx.params.provider);
    // Each provider returns one way only (Apple by form POST, the others by GET); the other way is refused before the state is spent.
    if (method !== provider.callbackMethod) {
      throw new HttpError(405, `Sign-in with ${provider.id} returns with ${provider.callbackMethod}`, { allow: provider.callbackMethod });
    }
    const raw = ctx.cookie[STATE_COOKIE]?.value;
    ctx.cookie[STATE_COOKIE]?.remove();
    const saved = stateCookie.safeParse(typeof raw === "string" ? safeJson(raw) : raw);
    if (!saved.success || saved.data.provider !== provider.id || saved.data.state !== fields.state) {
      throw new DomainError("auth.invalid_oauth_state", "Invalid or expired sign-in state; please start again");
    }
    const extra: Record<string, string> = fields.user ? { user: fields.user } : {};
    const profile = await provider.fetchProfile(fields.code, saved.data.codeVerifier, extra);
    const user = await useCases.signInWithProvider(profile, ctx.origin);
    const session = await useCases.sessionFor(user, profile.image);
    await ctx.startSession(session.user, session.issuedAt);
    return ctx.redirect(`${settings.publicUrl}/`, 302);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
