import type { RequestOrigin } from "../../domain/audit.ts";
import { unauthenticated } from "../../domain/errors.ts";
import type { User } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps } from "../ports/index.ts";

export interface ProfileChanges {
  name?: string | null;
  image?: string | null;
}

export async function updateProfile(deps: Pick<Deps, "uow" | "ids" | "clock">, userId: string, changes: ProfileChanges, origin: RequestOrigin): Promise<User> {
  return deps.uow.transaction(async (tx) => {
    const user = await tx.users.update(userId, { ...changes, updatedAt: deps.clock.now() });
    if (!user) throw unauthenticated();
    await recordAudit(tx, deps, { userId, action: "user.update", entityType: "user", entityId: userId, changes: { ...changes }, origin });
    return user;
  });
}
