import { SignJWT, jwtVerify } from "jose";
import { SESSION_LIFETIME_SECONDS } from "../../domain/session.ts";
import type { SessionClaims } from "../../application/auth/access.ts";
import type { StartedSession } from "../../application/auth/start-session.ts";
import type { Clock } from "../../application/ports/system.ts";

type VerifiedClaims = SessionClaims & { exp: number };

/** Tokens whose signature was checked, kept so a shopper's next requests skip the check. */
const VERIFIED_KEPT = 5_000;

/**
 * HS256 session tokens (decisions §5, §10): sub, sid, email, name, role, fundraiserId, picture, iat,
 * exp. Expiry is judged by the same clock that stamps the tokens; the session they name is checked
 * by the access resolver.
 */
export function createSessionTokens(secret: string, clock: Clock) {
  // Imported once: handing jose the raw bytes would import the key again on every request.
  const key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  // The claims of tokens already verified, by the token's text: the same bytes verify the same way,
  // and checking the signature took some 8 % of the server's CPU in the payment bench. Only tokens that
  // verified are kept, so tokens nobody signed cannot fill it; the oldest go first; expiry is
  // judged again at each use.
  const verified = new Map<string, VerifiedClaims>();
  const unexpired = (claims: VerifiedClaims) => (claims.exp > Math.floor(clock.now().getTime() / 1000) ? claims : null);
  return {
    async issue({ id, user, issuedAt, expiresAt }: StartedSession): Promise<string> {
      return new SignJWT({
        sid: id,
        email: user.email,
        name: user.name,
        role: user.role,
        ...(user.fundraiserId ? { fundraiserId: user.fundraiserId } : {}),
        ...(user.image ? { picture: user.image } : {}),
      })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(user.id)
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(await key);
    },

    /** The claims of a token signed with our key by HS256 and not expired; null for anything else. */
    async verify(token: string): Promise<VerifiedClaims | null> {
      const known = verified.get(token);
      if (known) return unexpired(known);
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ["HS256"], currentDate: clock.now() });
        // Every token we issue has both, at most 30 days apart; anything else was not made here.
        if (typeof payload.exp !== "number" || typeof payload.iat !== "number") return null;
        if (payload.exp - payload.iat > SESSION_LIFETIME_SECONDS) return null;
        const text = (value: unknown) => (typeof value === "string" ? value : undefined);
        const claims = Object.freeze({
          sub: text(payload.sub),
          sid: text(payload.sid),
          picture: text(payload.picture),
          fundraiserId: text(payload.fundraiserId),
          exp: payload.exp,
        });
        if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value!);
        verified.set(token, claims);
        return claims;
      } catch {
        return null;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
