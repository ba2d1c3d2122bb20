import { SignJWT, jwtVerify } from "jose";
import { SESSION_LIFETIME_SECONDS } from "../../domain/session.ts";
import type { SessionClaims } from "../../application/auth/access.ts";
import type { StartedSession } from "../../application/auth/start-session.ts";
import type { Clock } from "../../application/ports/system.ts";

/**
 * HS256 session tokens (decisions §5, §10): sub, sid, email, name, role, fundraiserId, picture, iat,
 * exp. Expiry is judged by the same clock that stamps the tokens; the session they name is checked
 * by the access resolver.
 */
export function createSessionTokens(secret: string, clock: Clock) {
  // Imported once: handing jose the raw bytes would import the key again on every request.
  const key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
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
    async verify(token: string): Promise<(SessionClaims & { exp: number }) | null> {
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ["HS256"], currentDate: clock.now() });
        // Every token we issue has both, at most 30 days apart; anything else was not made here.
        if (typeof payload.exp !== "number" || typeof payload.iat !== "number") return null;
        if (payload.exp - payload.iat > SESSION_LIFETIME_SECONDS) return null;
        const text = (value: unknown) => (typeof value === "string" ? value : undefined);
        return {
          sub: text(payload.sub),
          sid: text(payload.sid),
          picture: text(payload.picture),
          fundraiserId: text(payload.fundraiserId),
          exp: payload.exp,
        };
      } catch {
        return null;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
