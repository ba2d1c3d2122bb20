import type { User } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";
import { type SessionUser, sessionUserOf } from "./access.ts";

/**
 * What a new session token carries for this user, and when it is issued. A FUNDRAISER's fundraiser
 * id is looked up here once and then travels in the token. Tokens count time in whole seconds, and
 * a password change ends every session issued before the next whole second; a session started in
 * what is left of that second is stamped with the cut-off itself, so it is not ended with them.
 */
export async function sessionFor(
  deps: Pick<Deps, "uow" | "clock">,
  user: User,
  picture?: string | null,
): Promise<{ user: SessionUser; issuedAt: Date }> {
  const fundraiserId = user.role === "FUNDRAISER" ? await deps.uow.read((db) => db.users.findFundraiserId(user.id)) : null;
  const now = deps.clock.now();
  const cutOff = user.sessionsValidAfter;
  return { user: sessionUserOf(user, fundraiserId, picture), issuedAt: cutOff && cutOff > now ? cutOff : now };
}
