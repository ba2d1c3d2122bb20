import type { User } from "../../domain/user.ts";
import type { Deps } from "../ports.ts";
import { type SessionUser, sessionUserOf } from "./access.ts";

/**
 * What a new session token carries for this user, and when it is issued. A FUNDRAISER's fundraiser
 * id is looked up here once and then travels in the token.
 */
export async function sessionFor(
  deps: Pick<Deps, "users" | "clock">,
  user: User,
  picture?: string | null,
): Promise<{ user: SessionUser; issuedAt: Date }> {
  const fundraiserId = user.role === "FUNDRAISER" ? await deps.users.findFundraiserId(user.id) : null;
  return { user: sessionUserOf(user, fundraiserId, picture), issuedAt: deps.clock.now() };
}
