import { type Actor, type RolePermissions } from "../../domain/permissions.ts";
import type { User, UserRole } from "../../domain/user.ts";
import { loadRolePermissions } from "../permissions/role-permissions.ts";
import type { Deps } from "../ports/index.ts";

/** The user object of a session, as the spec's Session table has it. */
export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  fundraiserId?: string;
  image?: string;
}

/** The session's view of a user; the picture is the identity provider's when the account has none. */
export function sessionUserOf(user: User, fundraiserId: string | null, picture?: string | null): SessionUser {
  const image = user.image ?? picture ?? undefined;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    ...(fundraiserId ? { fundraiserId } : {}),
    ...(image ? { image } : {}),
  };
}

export interface Principal {
  user: SessionUser;
  actor: Actor;
}

/** What a verified session token says; everything but the subject may be missing in older tokens. */
export interface SessionClaims {
  sub?: string;
  email?: string;
  picture?: string;
  fundraiserId?: string;
  /** Seconds since the epoch. */
  iat?: number;
}

export const ACCESS_CACHE_MS = 30_000;

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * Turns verified token claims into who is calling, with role and permissions as the database has
 * them now. Lookups are cached for at most 30 seconds per instance; changes made through this
 * instance drop their entry at once.
 */
export function createAccessResolver(deps: Pick<Deps, "uow" | "clock" | "logger">, ttlMs = ACCESS_CACHE_MS) {
  const users = new Map<string, Cached<{ user: User; fundraiserId: string | null } | null>>();
  let rolePermissions: Cached<RolePermissions> | null = null;
  let warnedAboutDefaults = false;

  const fresh = <T>(entry: Cached<T> | null | undefined): entry is Cached<T> =>
    entry != null && entry.until > deps.clock.now().getTime();

  async function permissionsByRole(): Promise<RolePermissions> {
    if (fresh(rolePermissions)) return rolePermissions.value;
    const loaded = await loadRolePermissions(deps);
    if (loaded.fromDefaults && !warnedAboutDefaults) {
      warnedAboutDefaults = true;
      deps.logger.warn("permissions.table_empty", { message: "role_permissions is empty or missing; built-in default permissions apply" });
    }
    rolePermissions = { value: loaded.permissions, until: deps.clock.now().getTime() + ttlMs };
    return loaded.permissions;
  }

  async function account(claims: SessionClaims) {
    const key = claims.sub ?? `email:${claims.email}`;
    const cached = users.get(key);
    if (fresh(cached)) return cached.value;
    const { sub, email } = claims;
    const user = await deps.uow.read((db) => (sub ? db.users.findById(sub) : email ? db.users.findByEmail(email) : Promise.resolve(null)));
    const fundraiserId = user?.role === "FUNDRAISER" ? (claims.fundraiserId ?? (await deps.uow.read((db) => db.users.findFundraiserId(user.id)))) : null;
    const value = user ? { user, fundraiserId } : null;
    users.set(key, { value, until: deps.clock.now().getTime() + ttlMs });
    return value;
  }

  return {
    async resolve(claims: SessionClaims): Promise<Principal | null> {
      const found = await account(claims);
      if (!found) return null;
      const { user, fundraiserId } = found;
      const issuedAtMs = (claims.iat ?? 0) * 1000;
      if (user.sessionsValidAfter && issuedAtMs < user.sessionsValidAfter.getTime()) return null;
      const permissions = (await permissionsByRole()).get(user.role) ?? new Set();
      return {
        user: sessionUserOf(user, fundraiserId, claims.picture),
        actor: { userId: user.id, role: user.role, permissions },
      };
    },
    forgetUser(userId: string) {
      users.delete(userId);
      for (const [key, entry] of users) if (entry.value?.user.id === userId) users.delete(key);
    },
    forgetPermissions() {
      rolePermissions = null;
    },
  };
}

export type AccessResolver = ReturnType<typeof createAccessResolver>;
