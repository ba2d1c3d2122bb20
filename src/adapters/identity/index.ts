import type { IdentityProvider, ProviderId } from "../../application/ports/identity.ts";
import { type AppleClientConfig, createAppleProvider } from "./apple.ts";
import { createFacebookProvider } from "./facebook.ts";
import { createGitHubProvider } from "./github.ts";
import { createGoogleProvider } from "./google.ts";
import { type OAuthClientConfig, type ProviderClient, asIdentityProvider } from "./provider-client.ts";

/** The providers with credentials; one without is not offered. */
export interface OAuthConfig {
  google?: OAuthClientConfig;
  github?: OAuthClientConfig;
  facebook?: OAuthClientConfig;
  apple?: AppleClientConfig;
}

/** One provider for every client that has credentials; the others are not offered at all. */
export function createIdentityProviders(config: OAuthConfig, publicUrl: string): ReadonlyMap<ProviderId, IdentityProvider> {
  const callback = (id: ProviderId) => `${publicUrl}/api/auth/callback/${id}`;
  const providers = [
    config.google && createGoogleProvider(config.google, callback("google")),
    config.github && createGitHubProvider(config.github, callback("github")),
    config.facebook && createFacebookProvider(config.facebook, callback("facebook")),
    config.apple && createAppleProvider(config.apple, callback("apple")),
  ].filter((p): p is ProviderClient => p !== undefined);
  return new Map(providers.map((p) => [p.id, asIdentityProvider(p)]));
}
