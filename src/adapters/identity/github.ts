import { GitHub } from "arctic";
import { z } from "zod";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { PROVIDER_LIMITS, providerCalls } from "./provider-calls.ts";
import { imageUrl, optionalText } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

const gitHubUser = z.object({
  id: z.number().int().nonnegative(),
  login: optionalText,
  name: optionalText,
  email: optionalText,
  avatar_url: imageUrl,
});

/** The primary entry of /user/emails: one whose e-mail is no string is passed over, and only `verified: true` vouches for it. */
const gitHubEmail = z.object({ email: z.string(), primary: z.literal(true), verified: z.boolean().catch(false) });
const gitHubEmails = z.array(z.unknown()).catch([]);

const TOKEN_ENDPOINT = "https://github.com/login/oauth/access_token";

export function createGitHubProvider(config: OAuthClientConfig, redirectUri: string, limits = PROVIDER_LIMITS): ProviderClient {
  const github = new GitHub(config.clientId, config.clientSecret, redirectUri);
  const failed = () => new DomainError("auth.provider_failed", "Sign-in with GitHub failed", { provider: "github" });
  return {
    id: "github",
    name: "GitHub",
    // arctic's GitHub client takes no code verifier.
    usesPkce: false,
    callbackMethod: "GET",
    authorizationUrl(state) {
      return github.createAuthorizationURL(state, ["read:user", "user:email"]);
    },
    async fetchProfile(code) {
      let found: unknown;
      let emails: unknown;
      try {
        const calls = providerCalls(limits);
        const accessToken = (await calls.tokens(TOKEN_ENDPOINT, { code, redirect_uri: redirectUri }, { basic: config })).accessToken();
        const headers = { Authorization: `Bearer ${accessToken}`, Accept: "application/vnd.github+json", "User-Agent": "storefront" };
        found = await calls.json("https://api.github.com/user", { headers });
        // /user shows only the public e-mail and says nothing of verification; losing the emails
        // call costs the user an automatic link to an existing account, not the sign-in.
        emails = await calls.json("https://api.github.com/user/emails", { headers }).catch(() => null);
      } catch {
        throw failed();
      }
      const user = gitHubUser.safeParse(found);
      if (!user.success) throw failed();
      const primary = primaryEmail(emails);
      return {
        provider: "github",
        providerAccountId: String(user.data.id),
        email: primary?.email ?? user.data.email,
        emailVerified: primary?.verified ?? false,
        name: user.data.name ?? user.data.login,
        image: user.data.avatar_url,
      };
    },
  };
}

function primaryEmail(emails: unknown): z.infer<typeof gitHubEmail> | null {
  for (const entry of gitHubEmails.parse(emails)) {
    const email = gitHubEmail.safeParse(entry);
    if (email.success) return email.data;
  }
  return null;
}
