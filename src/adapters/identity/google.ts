import { decodeIdToken, Google } from "arctic";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { PROVIDER_LIMITS, providerCalls } from "./provider-calls.ts";
import { imageUrl, optionalText } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

interface GoogleClaims {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  picture?: unknown;
}

const TOKEN_ENDPOINT = "https://oauth2.googleapis.com/token";

export function createGoogleProvider(config: OAuthClientConfig, redirectUri: string, limits = PROVIDER_LIMITS): ProviderClient {
  const google = new Google(config.clientId, config.clientSecret, redirectUri);
  const failed = () => new DomainError("auth.provider_failed", "Sign-in with Google failed", { provider: "google" });
  return {
    id: "google",
    name: "Google",
    usesPkce: true,
    callbackMethod: "GET",
    authorizationUrl(state, codeVerifier) {
      if (codeVerifier === null) throw new Error("Google sign-in needs a PKCE code verifier");
      return google.createAuthorizationURL(state, codeVerifier, ["openid", "email", "profile"]);
    },
    async fetchProfile(code, codeVerifier) {
      if (codeVerifier === null) throw failed();
      let claims: GoogleClaims;
      try {
        const form = { code, code_verifier: codeVerifier, redirect_uri: redirectUri };
        const tokens = await providerCalls(limits).tokens(TOKEN_ENDPOINT, form, { basic: config });
        claims = decodeIdToken(tokens.idToken()) as GoogleClaims;
      } catch {
        throw failed();
      }
      if (typeof claims.sub !== "string" || claims.sub === "") throw failed();
      const email = typeof claims.email === "string" ? claims.email : null;
      return {
        provider: "google",
        providerAccountId: claims.sub,
        email,
        emailVerified: email !== null && claims.email_verified === true,
        name: optionalText.parse(claims.name),
        image: imageUrl.parse(claims.picture),
      };
    },
  };
}
