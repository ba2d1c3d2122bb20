/** Sessions last 30 days at most (the spec's session lifetime). */
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

/**
 * A signed-in session, kept on the server so it can be ended there: every token names one (`sid`),
 * and a token whose session is revoked or expired is refused, whatever its signature says.
 */
export interface Session {
  id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** A new session starting now. Tokens count whole seconds, so it starts and ends on one. */
export function newSession(id: string, userId: string, now: Date): Session {
  const createdAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return { id, userId, createdAt, expiresAt: new Date(createdAt.getTime() + SESSION_LIFETIME_SECONDS * 1000), revokedAt: null };
}

export function isSessionLive(session: Session, now: Date): boolean {
  return session.revokedAt === null && session.expiresAt > now;
}
