import type { Actor, RolePermissions } from "../../domain/permissions.ts";
import { type Session, isSessionLive } from "../../domain/session.ts";
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
  sessionId: string;
}

/** What a verified session token says. */
export interface SessionClaims {
  sub?: string;
  sid?: string;
  picture?: string;
  fundraiserId?: string;
}

export const ACCESS_CACHE_MS = 30_000;
const PRUNE_EVERY = 1_000;

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * Turns verified token claims into who is calling: the token's session must still be live, and
 * role and permissions are the database's now. Lookups are cached for at most 30 seconds per
 * instance; changes made through this instance drop their entries at once.
 */
export function createAccessResolver(deps: Pick<Deps, "uow" | "clock" | "logger">, ttlMs = ACCESS_CACHE_MS) {
  const sessions = new Map<string, Cached<Session | null>>();
  const users = new Map<string, Cached<{ user: User; fundraiserId: string | null } | null>>();
  let rolePermissions: Cached<RolePermissions> | null = null;
  let warnedAboutDefaults = false;

  const now = () => deps.clock.now().getTime();
  const fresh = <T>(entry: Cached<T> | null | undefined): entry is Cached<T> => entry != null && entry.until > now();

  let setsSincePrune = 0;
  async function cached<T>(cache: Map<string, Cached<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const entry = cache.get(key);
    if (fresh(entry)) return entry.value;
    const value = await load();
    cache.set(key, { value, until: now() + ttlMs });
    // Every so often drop what has gone stale, so the caches hold about the last 30 seconds' callers.
    if (++setsSincePrune >= PRUNE_EVERY) {
      setsSincePrune = 0;
      for (const map of [sessions, users] as Map<string, Cached<unknown>>[]) for (const [k, e] of map) if (!fresh(e)) map.delete(k);
    }
    return value;
  }

  async function permissionsByRole(): Promise<RolePermissions> {
    if (fresh(rolePermissions)) return rolePermissions.value;
    const loaded = await loadRolePermissions(deps);
    if (loaded.fromDefaults && !warnedAboutDefaults) {
      warnedAboutDefaults = true;
      deps.logger.warn("permissions.table_empty", { message: "role_permissions is empty or missing; built-in default permissions apply" });
    }
    rolePermissions = { value: loaded.permissions, until: now() + ttlMs };
    return loaded.permissions;
  }

  const account = (userId: string, fundraiserId: string | undefined) =>
    cached(users, userId, () =>
      deps.uow.read(async (db) => {
        const user = await db.users.findById(userId);
        if (!user) return null;
        return { user, fundraiserId: user.role === "FUNDRAISER" ? (fundraiserId ?? (await db.users.findFundraiserId(user.id))) : null };
      }),
    );

  return {
    async resolve(claims: SessionClaims): Promise<Principal | null> {
      const { sid, sub } = claims;
      if (!sid || !sub) return null;
      const session = await cached(sessions, sid, () => deps.uow.read((db) => db.sessions.findById(sid)));
      if (!session || session.userId !== sub || !isSessionLive(session, deps.clock.now())) return null;
      const found = await account(sub, claims.fundraiserId);
      if (!found) return null;
      const permissions = (await permissionsByRole()).get(found.user.role) ?? new Set();
      return {
        user: sessionUserOf(found.user, found.fundraiserId, claims.picture),
        actor: { userId: found.user.id, role: found.user.role, permissions },
        sessionId: sid,
      };
    },
    forgetUser(userId: string) {
      users.delete(userId);
      for (const [sid, entry] of sessions) if (entry.value?.userId === userId) sessions.delete(sid);
    },
    forgetSession(sid: string) {
      sessions.delete(sid);
    },
    forgetPermissions() {
      rolePermissions = null;
    },
    /** How many sessions and accounts this instance holds in its cache. */
    stats: () => ({ sessions: sessions.size, users: users.size }),
  };
}
