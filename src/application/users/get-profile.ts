import { DomainError } from "../../domain/errors.ts";
import type { User } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";

export async function getProfile(deps: Pick<Deps, "uow">, userId: string): Promise<User> {
  const user = await deps.uow.read((db) => db.users.findById(userId));
  if (!user) throw new DomainError("user.not_found", "User not found");
  return user;
}
