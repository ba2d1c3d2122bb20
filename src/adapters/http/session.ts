import { SignJWT, jwtVerify } from "jose";
import type { SessionClaims, SessionUser } from "../../application/auth/access.ts";
import type { Clock } from "../../application/ports/system.ts";

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export interface IssuedSession {
  token: string;
  expires: Date;
}

/**
 * HS256 session tokens (decisions §5): sub, email, name, role, fundraiserId, picture, iat, exp.
 * Expiry is judged by the same clock that stamps the tokens.
 */
export function createSessionTokens(secret: string, clock: Clock) {
  // Imported once: handing jose the raw bytes would import the key again on every request.
  const key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  return {
    async issue(user: SessionUser, issuedAt: Date): Promise<IssuedSession> {
      const iat = Math.floor(issuedAt.getTime() / 1000);
      const exp = iat + SESSION_MAX_AGE_SECONDS;
      const token = await new SignJWT({
        email: user.email,
        name: user.name,
        role: user.role,
        ...(user.fundraiserId ? { fundraiserId: user.fundraiserId } : {}),
        ...(user.image ? { picture: user.image } : {}),
      })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(user.id)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(await key);
      return { token, expires: new Date(exp * 1000) };
    },

    /** The claims of a token signed with our key by HS256 and not expired; null for anything else. */
    async verify(token: string): Promise<(SessionClaims & { exp: number }) | null> {
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ["HS256"], currentDate: clock.now() });
        // Every token we issue has both, at most 30 days apart; anything else was not made here.
        if (typeof payload.exp !== "number" || typeof payload.iat !== "number") return null;
        if (payload.exp - payload.iat > SESSION_MAX_AGE_SECONDS) return null;
        return {
          sub: typeof payload.sub === "string" ? payload.sub : undefined,
          email: typeof payload.email === "string" ? payload.email : undefined,
          picture: typeof payload.picture === "string" ? payload.picture : undefined,
          fundraiserId: typeof payload.fundraiserId === "string" ? payload.fundraiserId : undefined,
          iat: payload.iat,
          exp: payload.exp,
        };
      } catch {
        return null;
      }
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
