import { GitHub } from "arctic";
import type { OAuthClientConfig, ProviderClient } from "./provider-client.ts";
import { DomainError } from "../../domain/errors.ts";

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url: string | null;
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

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
      let user: GitHubUser;
      let primary: GitHubEmail | undefined;
      try {
        const accessToken = (await github.validateAuthorizationCode(code)).accessToken();
        user = await getJson<GitHubUser>("https://api.github.com/user", accessToken);
        // /user shows only the public e-mail and says nothing of verification; losing the emails
        // call costs the user an automatic link to an existing account, not the sign-in.
        const emails = await getJson<GitHubEmail[]>("https://api.github.com/user/emails", accessToken).catch(() => null);
        primary = Array.isArray(emails) ? emails.find((e) => e.primary) : undefined;
      } catch {
        throw failed();
      }
      if (typeof user.id !== "number") throw failed();
      return {
        provider: "github",
        providerAccountId: String(user.id),
        email: primary?.email ?? user.email ?? null,
        emailVerified: primary?.verified === true,
        name: user.name ?? user.login ?? null,
        image: user.avatar_url ?? null,
      };
    },
  };
}

async function getJson<T>(url: string, accessToken: string): Promise<T> {
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/vnd.github+json", "User-Agent": "storefront" },
  });
  if (!response.ok) throw new Error(`GitHub answered ${response.status} for ${url}`);
  return (await response.json()) as T;
}
