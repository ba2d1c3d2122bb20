import { Apple, decodeIdToken } from "arctic";
import type { ProviderClient } from "./provider-client.ts";
import { DomainError } from "../../domain/errors.ts";

export interface AppleClientConfig {
  clientId: string;
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"). */
  privateKey: string;
}

interface AppleClaims {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
}

export function createAppleProvider(config: AppleClientConfig, redirectUri: string): ProviderClient {
  const apple = new Apple(config.clientId, config.teamId, config.keyId, pkcs8FromPem(config.privateKey), redirectUri);
  const failed = () => new DomainError("auth.provider_failed", "Sign-in with Apple failed", { provider: "apple" });
  return {
    id: "apple",
    name: "Apple",
    // arctic's Apple client takes no code verifier.
    usesPkce: false,
    callbackMethod: "POST",
    authorizationUrl(state) {
      const url = apple.createAuthorizationURL(state, ["name", "email"]);
      // Apple refuses the name and email scopes unless the answer comes back as a form POST.
      url.searchParams.set("response_mode", "form_post");
      return url;
    },
    async fetchProfile(code, _codeVerifier, extra) {
      let claims: AppleClaims;
      try {
        claims = decodeIdToken((await apple.validateAuthorizationCode(code)).idToken()) as AppleClaims;
      } catch {
        throw failed();
      }
      if (typeof claims.sub !== "string" || claims.sub === "") throw failed();
      const email = typeof claims.email === "string" ? claims.email : null;
      return {
        provider: "apple",
        providerAccountId: claims.sub,
        email,
        // Apple has sent this claim both as a boolean and as the string "true".
        emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === "true"),
        name: nameFromUserField(extra.user),
        image: null,
      };
    },
  };
}

function pkcs8FromPem(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  try {
    return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  } catch {
    throw new Error("The Apple private key is not a PKCS#8 PEM");
  }
}

/** Apple sends the name only on the first sign-in, as JSON the browser posts along; it may be absent or odd. */
function nameFromUserField(user: string | undefined): string | null {
  if (!user) return null;
  try {
    const name = (JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } } | null)?.name;
    const parts = [name?.firstName, name?.lastName].filter((p): p is string => typeof p === "string" && p.trim() !== "");
    return parts.length ? parts.map((p) => p.trim()).join(" ") : null;
  } catch {
    return null;
  }
}
