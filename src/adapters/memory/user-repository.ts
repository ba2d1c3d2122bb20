import { type AccountSummary, accountOf, countsAsSpent, matchesAccountFilter } from "../../domain/account.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Order } from "../../domain/order.ts";
import { offsetOf } from "../../domain/paging.ts";
import { type User, normalizeEmail } from "../../domain/user.ts";
import type { UserRepository } from "../../application/ports/identity.ts";

export interface MemoryUserTables {
  users: Map<string, User>;
  /** `${provider}:${providerAccountId}` → user id */
  identities: Map<string, string>;
  /** user id → fundraiser id */
  fundraisers: Map<string, string>;
  /** Read for the accounts' order figures. */
  orders: Map<string, Order>;
}

/** Newest first, then by id (descending), as PostgreSQL orders them. */
const newestFirst = (a: User, b: User) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

function summaryOf(user: User, orders: Iterable<Order>): AccountSummary {
  const own = [...orders].filter((o) => o.userId === user.id);
  return {
    ...structuredClone(accountOf(user)),
    orderCount: own.length,
    totalSpent: own.filter(countsAsSpent).reduce((sum, o) => sum + o.total, 0),
    lastOrderAt: own.length ? new Date(Math.max(...own.map((o) => o.createdAt.getTime()))) : null,
  };
}

export function createMemoryUserRepository({ users, identities, fundraisers, orders }: MemoryUserTables): UserRepository {
  const copy = (u: User | undefined) => (u ? structuredClone(u) : null);
  const matching = (filter: Parameters<typeof matchesAccountFilter>[1]) => [...users.values()].filter((u) => matchesAccountFilter(u, filter)).sort(newestFirst);
  return {
    async findById(id) {
      return copy(users.get(id));
    },
    // Memory transactions already run one at a time, so there is nothing to hold.
    async lock(id) {
      return copy(users.get(id));
    },
    async lockInIdOrder(ids, alsoWithRole) {
      return [...users.values()]
        .filter((u) => ids.includes(u.id) || u.role === alsoWithRole)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((u) => structuredClone(u));
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
    async listAccounts(filter, page) {
      const found = matching(filter);
      const start = offsetOf(page);
      return { items: found.slice(start, start + page.limit).map((u) => summaryOf(u, orders.values())), total: found.length };
    },
    async findAccount(id) {
      const user = users.get(id);
      return user ? summaryOf(user, orders.values()) : null;
    },
    async *everyAccount(filter, batchSize = 1000) {
      const found = matching(filter);
      for (let start = 0; start < found.length; start += batchSize) {
        yield found.slice(start, start + batchSize).map((u) => summaryOf(u, orders.values()));
      }
    },
    async linkIdentity(provider, providerAccountId, userId) {
      const key = `${provider}:${providerAccountId}`;
      if (!identities.has(key)) identities.set(key, userId);
    },
  };
}
