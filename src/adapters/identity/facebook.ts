import { Facebook } from "arctic";
import { z } from "zod";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { imageUrl, optionalText } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

const facebookUser = z.object({
  id: z.string().min(1),
  name: optionalText,
  email: optionalText,
  picture: z.object({ data: z.object({ url: imageUrl }) }).catch({ data: { url: null } }),
});

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
      let found: unknown;
      try {
        const accessToken = (await facebook.validateAuthorizationCode(code)).accessToken();
        const url = new URL("https://graph.facebook.com/me");
        url.searchParams.set("fields", "id,name,email,picture.type(large)");
        url.searchParams.set("access_token", accessToken);
        const response = await fetch(url);
        if (!response.ok) throw new Error(`Facebook answered ${response.status}`);
        found = await response.json();
      } catch {
        throw failed();
      }
      const user = facebookUser.safeParse(found);
      if (!user.success) throw failed();
      const { id, name, email, picture } = user.data;
      return {
        provider: "facebook",
        providerAccountId: id,
        email,
        // The Graph API leaves `email` out until the address is confirmed, so having one means verified.
        emailVerified: email !== null,
        name,
        image: picture.data.url,
      };
    },
  };
}
