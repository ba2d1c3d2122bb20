import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type User, newUser, normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { ExternalProfile } from "../ports/identity.ts";
import type { Deps } from "../ports/index.ts";

/**
 * Finds or creates the account behind a provider profile: first by the provider's own account id,
 * then by e-mail. A new identity is accepted only with an e-mail the provider vouches for: with an
 * unverified one, anyone could claim an existing account, or set up an account in someone else's
 * name that the real owner would later be signed in to.
 */
export async function signInWithProvider(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  profile: ExternalProfile,
  origin: RequestOrigin,
): Promise<User> {
  return deps.uow.transaction(async (tx) => {
    let user = await tx.users.findByIdentity(profile.provider, profile.providerAccountId);
    let created = false;
    if (!user) {
      if (!profile.email || !profile.emailVerified) {
        throw new DomainError("auth.provider_failed", "Your account with this provider has no verified email address", { provider: profile.provider });
      }
      const email = normalizeEmail(profile.email);
      user = await tx.users.findByEmail(email);
      if (!user) {
        user = newUser({
          id: deps.ids.next(),
          email,
          name: profile.name,
          passwordHash: null,
          role: "CUSTOMER",
          image: profile.image,
          isEmailVerified: true,
          at: deps.clock.now(),
        });
        await tx.users.create(user);
        created = true;
      }
      await tx.users.linkIdentity(profile.provider, profile.providerAccountId, user.id);
    }
    await recordAudit(tx, deps, {
      userId: user.id,
      action: created ? "auth.register" : "auth.login",
      entityType: "user",
      entityId: user.id,
      changes: { method: profile.provider },
      origin,
    });
    return user;
  });
}
