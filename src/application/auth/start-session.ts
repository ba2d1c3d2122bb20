import { newSession } from "../../domain/session.ts";
import type { User } from "../../domain/user.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import { type SessionUser, sessionUserOf } from "./access.ts";

/** A session just started: what its token carries. */
export interface StartedSession {
  id: string;
  user: SessionUser;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Starts a session for the user inside the caller's transaction, so it lands with the sign-in's
 * audit entry. A FUNDRAISER's fundraiser id is looked up here once and then travels in the token.
 */
export async function startSession(tx: Repositories, deps: Pick<Deps, "ids" | "clock">, user: User, picture?: string | null): Promise<StartedSession> {
  const session = newSession(deps.ids.next(), user.id, deps.clock.now());
  await tx.sessions.create(session);
  const fundraiserId = user.role === "FUNDRAISER" ? await tx.users.findFundraiserId(user.id) : null;
  return { id: session.id, user: sessionUserOf(user, fundraiserId, picture), issuedAt: session.createdAt, expiresAt: session.expiresAt };
}
