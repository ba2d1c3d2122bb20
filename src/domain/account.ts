import type { Cents } from "./money.ts";
import { type Order, isFinalStatus } from "./order.ts";
import type { Actor } from "./permissions.ts";
import type { User, UserRole } from "./user.ts";

/** An account as staff see it: never its password hash, only whether it has one (decisions §12: no answer carries one). */
export type Account = Omit<User, "passwordHash"> & { hasPassword: boolean };

export function accountOf(user: User): Account {
  const { passwordHash, ...rest } = user;
  return { ...rest, hasPassword: passwordHash !== null };
}

/** An account with its orders in figures, as the back office lists it. */
export interface AccountSummary extends Account {
  /** Every order the account placed, whatever became of it. */
  orderCount: number;
  /** What its orders brought in: see countsAsSpent. */
  totalSpent: Cents;
  /** When it last placed an order; null when it never did. */
  lastOrderAt: Date | null;
}

/** The back office's filters of accounts: `q` a case-insensitive substring of the e-mail or the name. */
export interface AccountFilter {
  q?: string;
  role?: UserRole;
}

/**
 * Money an order counts as spent: paid, and not ended. A paid order staff cancelled or refunded is
 * being given back (its refund may still be due), so it counts no more from the moment it ends;
 * one refunded by the processor's own event has its payment REFUNDED, and is not paid either.
 */
export function countsAsSpent(order: Pick<Order, "status" | "paymentStatus">): boolean {
  return order.paymentStatus === "PAID" && !isFinalStatus(order.status);
}

/** The filter rules as the in-memory adapter applies them; PostgreSQL's are its SQL, held to the same results by the contract. */
export function matchesAccountFilter(account: Pick<User, "email" | "name" | "role">, filter: AccountFilter): boolean {
  const q = filter.q?.normalize("NFC").toLowerCase();
  const inText = q === undefined || account.email.toLowerCase().includes(q) || (account.name?.toLowerCase().includes(q) ?? false);
  return inText && (filter.role === undefined || account.role === filter.role);
}

/** The roles that hold every permission. */
const PRIVILEGED: ReadonlySet<UserRole> = new Set(["ADMIN", "DEVELOPER"]);

/**
 * Decisions §12: only an ADMIN or a DEVELOPER may give or take away ADMIN or DEVELOPER, whatever
 * else the actor was granted (STAFF with users:write cannot raise anyone, themselves included, to
 * all permissions). The system actor is the operator at the CLI, who holds the database anyway.
 */
export function mayChangeRole(actor: Actor, from: UserRole, to: UserRole): boolean {
  if (!PRIVILEGED.has(from) && !PRIVILEGED.has(to)) return true;
  return actor.role === "SYSTEM" || PRIVILEGED.has(actor.role);
}

/** Whether moving this account to `to` would leave the shop without an ADMIN, `adminIds` being every ADMIN there is. */
export function demotesLastAdmin(user: Pick<User, "id" | "role">, to: UserRole, adminIds: readonly string[]): boolean {
  return user.role === "ADMIN" && to !== "ADMIN" && adminIds.every((id) => id === user.id);
}
