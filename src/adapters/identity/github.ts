import { GitHub } from "arctic";
import { z } from "zod";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
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

export function createGitHubProvider(config: OAuthClientConfig, redirectUri: string): ProviderClient {
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
        const accessToken = (await github.validateAuthorizationCode(code)).accessToken();
        found = await getJson("https://api.github.com/user", accessToken);
        // /user shows only the public e-mail and says nothing of verification; losing the emails
        // call costs the user an automatic link to an existing account, not the sign-in.
        emails = await getJson("https://api.github.com/user/emails", accessToken).catch(() => null);
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

async function getJson(url: string, accessToken: string): Promise<unknown> {
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/vnd.github+json", "User-Agent": "storefront" },
  });
  if (!response.ok) throw new Error(`GitHub answered ${response.status} for ${url}`);
  return response.json();
}
