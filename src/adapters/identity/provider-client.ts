import { generateCodeVerifier, generateState } from "arctic";
import type { IdentityProvider } from "../../application/ports/identity.ts";

/** A provider's client credentials (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, and so on). */
export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
}

/** What each provider's adapter implements: the port, with the authorization URL built for a given state. */
export type ProviderClient = Omit<IdentityProvider, "begin"> & {
  authorizationUrl(state: string, codeVerifier: string | null): URL;
};

/** The port for a provider client: every sign-in begins with a fresh state and, with PKCE, a fresh verifier (arctic's). */
export function asIdentityProvider(client: ProviderClient): IdentityProvider {
  return {
    ...client,
    begin() {
      const state = generateState();
      const codeVerifier = client.usesPkce ? generateCodeVerifier() : null;
      return { url: client.authorizationUrl(state, codeVerifier), state, codeVerifier };
    },
  };
}
