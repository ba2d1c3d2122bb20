import { DomainError } from "../../domain/errors.ts";
import type { User } from "../../domain/user.ts";
import type { Deps } from "../ports.ts";

export async function getProfile(deps: Pick<Deps, "users">, userId: string): Promise<User> {
  const user = await deps.users.findById(userId);
  if (!user) throw new DomainError("user.not_found", "User not found");
  return user;
}
