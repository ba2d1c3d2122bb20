import { unauthenticated } from "../../domain/errors.ts";
import type { User } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";

export async function getProfile(deps: Pick<Deps, "uow">, userId: string): Promise<User> {
  const user = await deps.uow.read((db) => db.users.findById(userId));
  if (!user) throw unauthenticated();
  return user;
}
