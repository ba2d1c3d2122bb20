import { decodeIdToken, Google } from "arctic";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { PROVIDER_LIMITS, providerCalls } from "./provider-calls.ts";
import { idTokenClaims, imageUrl, optionalText } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

const googleClaims = idTokenClaims.extend({ name: optionalText, picture: imageUrl });

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
      let found: unknown;
      try {
        const form = { code, code_verifier: codeVerifier, redirect_uri: redirectUri };
        const tokens = await providerCalls(limits).tokens(TOKEN_ENDPOINT, form, { basic: config });
        found = decodeIdToken(tokens.idToken());
      } catch {
        throw failed();
      }
      const claims = googleClaims.safeParse(found);
      if (!claims.success) throw failed();
      const { sub, email, email_verified, name, picture } = claims.data;
      return {
        provider: "google",
        providerAccountId: sub,
        email,
        emailVerified: email !== null && email_verified === true,
        name,
        image: picture,
      };
    },
  };
}
