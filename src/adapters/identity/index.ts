import type { IdentityProvider, ProviderId } from "../../application/ports/identity.ts";
import { type AppleClientConfig, createAppleProvider } from "./apple.ts";
import { createFacebookProvider } from "./facebook.ts";
import { createGitHubProvider } from "./github.ts";
import { createGoogleProvider } from "./google.ts";
import { PROVIDER_LIMITS } from "./provider-calls.ts";
import { type OAuthClientConfig, type ProviderClient, asIdentityProvider } from "./provider-client.ts";

/** The providers with credentials; one without is not offered. */
export interface OAuthConfig {
  google?: OAuthClientConfig;
  github?: OAuthClientConfig;
  facebook?: OAuthClientConfig;
  apple?: AppleClientConfig;
}

/** One provider for every client that has credentials; the others are not offered at all. */
export function createIdentityProviders(config: OAuthConfig, publicUrl: string, limits = PROVIDER_LIMITS): ReadonlyMap<ProviderId, IdentityProvider> {
  const callback = (id: ProviderId) => `${publicUrl}/api/auth/callback/${id}`;
  const providers = [
    config.google && createGoogleProvider(config.google, callback("google"), limits),
    config.github && createGitHubProvider(config.github, callback("github"), limits),
    config.facebook && createFacebookProvider(config.facebook, callback("facebook"), limits),
    config.apple && createAppleProvider(config.apple, callback("apple"), limits),
  ].filter((p): p is ProviderClient => p !== undefined);
  return new Map(providers.map((p) => [p.id, asIdentityProvider(p)]));
}
