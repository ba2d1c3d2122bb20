import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type User, newUser, normalizeEmail } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, ExternalProfile } from "../ports.ts";

/**
 * Finds or creates the account behind a provider profile: first by the provider's own account id,
 * then by e-mail — but an existing account is only taken over when the provider vouches for the
 * e-mail, or anyone could claim an account by typing its address at a lax provider.
 */
export async function signInWithProvider(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  profile: ExternalProfile,
  origin: RequestOrigin,
): Promise<User> {
  if (!profile.email) {
    throw new DomainError("auth.provider_failed", "The provider did not share an email address", { provider: profile.provider });
  }
  const email = normalizeEmail(profile.email);
  return deps.uow.transaction(async (tx) => {
    let user = await tx.users.findByIdentity(profile.provider, profile.providerAccountId);
    let created = false;
    if (!user) {
      const existing = await tx.users.findByEmail(email);
      if (existing && !profile.emailVerified) {
        throw new DomainError("auth.provider_failed", "This email is already registered; sign in with your password", { provider: profile.provider });
      }
      if (!existing) {
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
      } else {
        user = existing;
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
