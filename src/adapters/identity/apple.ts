import { Apple, decodeIdToken } from "arctic";
import { SignJWT } from "jose";
import type { ProviderClient } from "./provider-client.ts";
import { PROVIDER_LIMITS, providerCalls } from "./provider-calls.ts";
import { idTokenClaims } from "./profile-fields.ts";
import { DomainError } from "../../domain/errors.ts";

export interface AppleClientConfig {
  clientId: string;
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"). */
  privateKey: string;
}

const TOKEN_ENDPOINT = "https://appleid.apple.com/auth/token";

export function createAppleProvider(config: AppleClientConfig, redirectUri: string, limits = PROVIDER_LIMITS): ProviderClient {
  const pkcs8 = pkcs8FromPem(config.privateKey);
  const apple = new Apple(config.clientId, config.teamId, config.keyId, pkcs8, redirectUri);
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
      let found: unknown;
      try {
        const client = { form: { client_id: config.clientId, client_secret: await clientSecret(config, pkcs8) } };
        const tokens = await providerCalls(limits).tokens(TOKEN_ENDPOINT, { code, redirect_uri: redirectUri }, client);
        found = decodeIdToken(tokens.idToken());
      } catch {
        throw failed();
      }
      const claims = idTokenClaims.safeParse(found);
      if (!claims.success) throw failed();
      const { sub, email, email_verified } = claims.data;
      return {
        provider: "apple",
        providerAccountId: sub,
        email,
        // Apple has sent this claim both as a boolean and as the string "true".
        emailVerified: email !== null && (email_verified === true || email_verified === "true"),
        name: nameFromUserField(extra.user),
        image: null,
      };
    },
  };
}

function pkcs8FromPem(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  try {
    return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  } catch {
    throw new Error("The Apple private key is not a PKCS#8 PEM");
  }
}

/**
 * Apple's client secret: a JWT the team's key signs, with the claims arctic's Apple client gives it
 * (whose method is private; the token request is sent by providerCalls, see there), valid 5
 * minutes; its audience a string where arctic writes a one-element array, which JWT takes alike.
 */
async function clientSecret(config: AppleClientConfig, pkcs8: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  return new SignJWT()
    .setProtectedHeader({ alg: "ES256", kid: config.keyId, typ: "JWT" })
    .setIssuer(config.teamId)
    .setSubject(config.clientId)
    .setAudience("https://appleid.apple.com")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(key);
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
