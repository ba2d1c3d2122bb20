import { DomainError } from "../../domain/errors.ts";
import { type User, normalizeEmail } from "../../domain/user.ts";
import type { UserRepository } from "../../application/ports/identity.ts";

export interface MemoryUserTables {
  users: Map<string, User>;
  /** `${provider}:${providerAccountId}` → user id */
  identities: Map<string, string>;
  /** user id → fundraiser id */
  fundraisers: Map<string, string>;
}

export function createMemoryUserRepository({ users, identities, fundraisers }: MemoryUserTables): UserRepository {
  const copy = (u: User | undefined) => (u ? structuredClone(u) : null);
  return {
    async findById(id) {
      return copy(users.get(id));
    },
    // Memory transactions already run one at a time, so there is nothing to hold.
    async lock(id) {
      return copy(users.get(id));
    },
    async holdForCheckout(id) {
      return users.has(id);
    },
    async findByEmail(email) {
      const wanted = normalizeEmail(email);
      return copy([...users.values()].find((u) => u.email === wanted));
    },
    async create(user) {
      const email = normalizeEmail(user.email);
      if ([...users.values()].some((u) => u.email === email)) {
        throw new DomainError("auth.email_taken", "An account with this email already exists");
      }
      users.set(user.id, structuredClone({ ...user, email }));
    },
    async update(id, changes) {
      const current = users.get(id);
      if (!current) return null;
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      const next = { ...current, ...defined };
      users.set(id, structuredClone(next));
      return structuredClone(next);
    },
    async findFundraiserId(userId) {
      return fundraisers.get(userId) ?? null;
    },
    async findByIdentity(provider, providerAccountId) {
      const userId = identities.get(`${provider}:${providerAccountId}`);
      return userId ? copy(users.get(userId)) : null;
    },
    async linkIdentity(provider, providerAccountId, userId) {
      const key = `${provider}:${providerAccountId}`;
      if (!identities.has(key)) identities.set(key, userId);
    },
  };
}
