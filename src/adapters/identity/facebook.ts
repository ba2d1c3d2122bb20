import { Facebook } from "arctic";
import { z } from "zod";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { PROVIDER_LIMITS, providerCalls } from "./provider-calls.ts";
import { imageUrl, optionalText } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

const facebookUser = z.object({
  id: z.string().min(1),
  name: optionalText,
  email: optionalText,
  picture: z.object({ data: z.object({ url: imageUrl }) }).catch({ data: { url: null } }),
});

const TOKEN_ENDPOINT = "https://graph.facebook.com/v16.0/oauth/access_token";

export function createFacebookProvider(config: OAuthClientConfig, redirectUri: string, limits = PROVIDER_LIMITS): ProviderClient {
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
        const calls = providerCalls(limits);
        const client = { form: { client_id: config.clientId, client_secret: config.clientSecret } };
        const accessToken = (await calls.tokens(TOKEN_ENDPOINT, { code, redirect_uri: redirectUri }, client)).accessToken();
        const url = new URL("https://graph.facebook.com/me");
        url.searchParams.set("fields", "id,name,email,picture.type(large)");
        url.searchParams.set("access_token", accessToken);
        found = await calls.json(url);
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
