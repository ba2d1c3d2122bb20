import { Facebook } from "arctic";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { DomainError } from "../../domain/errors.ts";

interface FacebookUser {
  id?: unknown;
  name?: string;
  email?: string;
  picture?: { data?: { url?: string } };
}

export function createFacebookProvider(config: OAuthClientConfig, redirectUri: string): ProviderClient {
  const facebook = new Facebook(config.clientId, config.clientSecret, redirectUri);
  const failed = () => new DomainError("auth.provider_failed", "Sign-in with Facebook failed", { provider: "facebook" });
  return {
    id: "facebook",
    name: "Facebook",
    // arctic's Facebook client takes no code verifier.
    usesPkce: false,
    callbackMethod: "GET",
    authorizationUrl(state) {
      return facebook.createAuthorizationURL(state, ["email", "public_profile"]);
    },
    async fetchProfile(code) {
      let user: FacebookUser;
      try {
        const accessToken = (await facebook.validateAuthorizationCode(code)).accessToken();
        const url = new URL("https://graph.facebook.com/me");
        url.searchParams.set("fields", "id,name,email,picture.type(large)");
        url.searchParams.set("access_token", accessToken);
        const response = await fetch(url);
        if (!response.ok) throw new Error(`Facebook answered ${response.status}`);
        user = (await response.json()) as FacebookUser;
      } catch {
        throw failed();
      }
      if (typeof user.id !== "string" || user.id === "") throw failed();
      return {
        provider: "facebook",
        providerAccountId: user.id,
        email: user.email ?? null,
        // The Graph API leaves `email` out until the address is confirmed, so having one means verified.
        emailVerified: user.email !== undefined,
        name: user.name ?? null,
        image: user.picture?.data?.url ?? null,
      };
    },
  };
}
