import type { RequestOrigin } from "../../domain/audit.ts";
import { DomainError } from "../../domain/errors.ts";
import { type User, emailProblem, newUser, normalizeEmail, providerName } from "../../domain/user.ts";
import { recordAudit } from "../audit.ts";
import type { Deps, Repositories } from "../ports/index.ts";
import type { ExternalProfile, IdentityProvider, ProviderId } from "../ports/identity.ts";
import { type StartedSession, startSession } from "./start-session.ts";

type ProviderDeps = Pick<Deps, "uow" | "ids" | "clock" | "identityProviders">;

/** The provider, when it is configured; 404 otherwise. */
export function configured(deps: Pick<Deps, "identityProviders">, id: string): IdentityProvider {
  const provider = deps.identityProviders.get(id as ProviderId);
  if (!provider) throw new DomainError("auth.provider_not_configured", `Sign-in with ${id} is not available`);
  return provider;
}

/** The first leg: where to send the browser, and the state (and PKCE verifier) to keep until it returns. */
export function beginProviderSignIn(deps: Pick<Deps, "identityProviders">, providerId: string) {
  const provider = configured(deps, providerId);
  return { provider: provider.id, callbackMethod: provider.callbackMethod, ...provider.begin() };
}

/** The second leg: the provider's code becomes a profile, the profile an account, the account a session. */
export async function finishProviderSignIn(
  deps: ProviderDeps,
  input: { providerId: string; code: string; codeVerifier: string | null; extra: Record<string, string> },
  origin: RequestOrigin,
): Promise<StartedSession> {
  const profile = await configured(deps, input.providerId).fetchProfile(input.code, input.codeVerifier, input.extra);
  const signIn = () =>
    deps.uow.transaction(async (tx) => {
      const { user, event } = await accountFor(tx, deps, profile, origin);
      await recordAudit(tx, deps, { userId: user.id, action: event, entityType: "user", entityId: user.id, changes: { method: profile.provider }, origin });
      return startSession(tx, deps, user, profile.image);
    });
  try {
    return await signIn();
  } catch (error) {
    // The e-mail's account was opened since this one looked (the same person's second tab, or a
    // registration): once more, it finds that account and signs in to it (found by an attack).
    if (error instanceof DomainError && error.code === "auth.email_taken") return signIn();
    throw error;
  }
}

/**
 * The account behind a provider profile: first by the provider's own account id, then by e-mail. A
 * new identity is accepted only with an e-mail the provider vouches for: with an unverified one,
 * anyone could claim an existing account, or set up an account in someone else's name that the
 * real owner would later be signed in to.
 */
async function accountFor(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  profile: ExternalProfile,
  origin: RequestOrigin,
): Promise<{ user: User; event: "auth.login" | "auth.register" }> {
  const linked = await tx.users.findByIdentity(profile.provider, profile.providerAccountId);
  if (linked) return { user: linked, event: "auth.login" };
  if (!profile.email || !profile.emailVerified) {
    throw new DomainError("auth.provider_failed", "Your account with this provider has no verified email address", { provider: profile.provider });
  }
  // Held to the rules of every account's e-mail, as given: a look-alike lowercased to another's address would take that account.
  if (emailProblem(profile.email)) {
    throw new DomainError("auth.provider_failed", "The email address of your account with this provider cannot be used here", { provider: profile.provider });
  }
  const email = normalizeEmail(profile.email);
  const existing = await tx.users.findByEmail(email);
  const user = existing
    ? await claimIfUnverified(tx, deps, existing, origin)
    : newUser({
        id: deps.ids.next(),
        email,
        name: providerName(profile.name),
        passwordHash: null,
        role: "CUSTOMER",
        image: profile.image,
        isEmailVerified: true,
        at: deps.clock.now(),
      });
  if (!existing) await tx.users.create(user);
  await tx.users.linkIdentity(profile.provider, profile.providerAccountId, user.id);
  return { user, event: existing ? "auth.login" : "auth.register" };
}

/**
 * Decisions §10, pre-hijacking: whoever registered this e-mail with a password never proved they
 * own it, and the provider just did for the person signing in. So that earlier password and every
 * session made with it end here, and the account counts as verified. A verified account is left as is.
 */
async function claimIfUnverified(tx: Repositories, deps: Pick<Deps, "ids" | "clock">, found: User, origin: RequestOrigin): Promise<User> {
  if (found.isEmailVerified) return found;
  // Waits for a password sign-in or change in progress, which then find the password gone.
  const user = (await tx.users.lock(found.id)) ?? found;
  if (user.isEmailVerified) return user;
  const now = deps.clock.now();
  const claimed = (await tx.users.update(user.id, { passwordHash: null, isEmailVerified: true, updatedAt: now })) ?? user;
  const sessionsEnded = await tx.sessions.revokeAllOf(user.id, now);
  await recordAudit(tx, deps, {
    userId: user.id,
    action: "user.update",
    entityType: "user",
    entityId: user.id,
    changes: { isEmailVerified: true, passwordRemoved: user.passwordHash !== null, sessionsEnded, reason: "verified identity linked" },
    origin,
  });
  return claimed;
}
