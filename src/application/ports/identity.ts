import type { AccountFilter, AccountSummary } from "../../domain/account.ts";
import type { PageRequest, Paged } from "../../domain/paging.ts";
import type { Permission } from "../../domain/permissions.ts";
import type { Session } from "../../domain/session.ts";
import type { User, UserRole } from "../../domain/user.ts";

export type UserChanges = Partial<Pick<User, "name" | "image" | "role" | "passwordHash" | "isEmailVerified">> & {
  updatedAt: Date;
};

export interface UserReader {
  findById(id: string): Promise<User | null>;
  /** By normalized (trimmed, lowercased) e-mail. */
  findByEmail(email: string): Promise<User | null>;
  findFundraiserId(userId: string): Promise<string | null>;
  findByIdentity(provider: string, providerAccountId: string): Promise<User | null>;
  /** The back office's list: matching accounts, newest first (then by id), one page of them, and how many match in all. */
  listAccounts(filter: AccountFilter, page: PageRequest): Promise<Paged<AccountSummary>>;
  findAccount(id: string): Promise<AccountSummary | null>;
  /**
   * Every matching account in the list's order, in keyset batches of at most `batchSize`, each read
   * by a statement of its own: nothing is held between batches, however slowly they are taken.
   */
  everyAccount(filter: AccountFilter, batchSize?: number): AsyncGenerator<AccountSummary[]>;
}

export interface UserRepository extends UserReader {
  /** Locks the account until the transaction ends (password and takeover changes wait for each other), and returns it. */
  lock(id: string): Promise<User | null>;
  /**
   * Locks these accounts, and every account holding `alsoWithRole` when given, until the transaction
   * ends: in one statement, in id order, so two such locks never deadlock (a role change locks its
   * caller and its target; two crossing changes took them in opposite orders). The lock lets rows
   * that refer to an account (an audit entry) be written meanwhile. Returns the accounts found, in id order.
   */
  lockInIdOrder(ids: readonly string[], alsoWithRole?: UserRole): Promise<User[]>;
  /**
   * Holds the account until the transaction ends against another holder (one customer's checkouts
   * go one at a time), without holding back writes that merely refer to it (a cart line, an audit
   * entry); false when there is no such account.
   */
  holdForCheckout(id: string): Promise<boolean>;
  /** Throws DomainError "auth.email_taken" when the e-mail is in use. */
  create(user: User): Promise<void>;
  update(id: string, changes: UserChanges): Promise<User | null>;
  linkIdentity(provider: string, providerAccountId: string, userId: string): Promise<void>;
}

export interface SessionReader {
  findById(id: string): Promise<Session | null>;
}

export interface SessionRepository extends SessionReader {
  create(session: Session): Promise<void>;
  /** Ends one session; false when it was unknown or had already ended. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Ends every live session of the user; returns how many. */
  revokeAllOf(userId: string, at: Date): Promise<number>;
  /** Deletes up to `limit` of the sessions that have ended (expired, or revoked) by `now`: a token naming one is refused all the same. Returns how many. */
  purgeEnded(now: Date, limit: number): Promise<number>;
}

export interface RolePermission {
  role: UserRole;
  permission: Permission;
}

export interface PermissionReader {
  /** Every row; none when the table is empty or missing. */
  all(): Promise<RolePermission[]>;
}

export interface PermissionRepository extends PermissionReader {
  /** False when the role already had it. */
  grant(role: UserRole, permission: Permission): Promise<boolean>;
  /** False when the role did not have it. */
  revoke(role: UserRole, permission: Permission): Promise<boolean>;
}

/** The list of passwords too common to allow (decisions §10). */
export interface CommonPasswords {
  /** Whether the password, lowercased, is on the list. */
  includes(lowercasedPassword: string): boolean;
}

/**
 * Slow on purpose (bcrypt). A hasher may bound how many checks wait for it, and how many of one
 * client's: one it refuses before running is DomainError "auth.busy" (503) or, when the client's
 * own check is already waiting, "auth.check_waiting" (429), both to retry in a moment; never a
 * wrong answer. The in-memory fake never refuses. `client`: who asks, as the rate limit counts
 * them (decisions §15; the HTTP adapter names it); none for the shop's own commands.
 */
export interface PasswordHasher {
  hash(password: string, client?: string): Promise<string>;
  /**
   * Whether any of the passwords (the forms one typed password may have been kept in, tried in
   * order) matches the hash, all within one check of the line: a second form refused on its own
   * would let a wrong guess go uncounted (found by a review). Against no hash (no such account, or
   * one without a password) the answer is false, as slow as a check but costing none (decisions
   * §15): no flood of made-up e-mails can fill the hasher, and no answer tells whether the account
   * exists.
   */
  verify(passwords: readonly string[], hash: string | null, client?: string): Promise<boolean>;
}

export const IDENTITY_PROVIDERS = ["google", "github", "facebook", "apple"] as const;
export type ProviderId = (typeof IDENTITY_PROVIDERS)[number];

export interface ExternalProfile {
  provider: ProviderId;
  providerAccountId: string;
  email: string | null;
  /** Only a provider-verified e-mail may be linked to an existing account. */
  emailVerified: boolean;
  name: string | null;
  image: string | null;
}

export interface IdentityProvider {
  id: ProviderId;
  /** Display name, e.g. "GitHub". */
  name: string;
  /** Whether the authorization request carries a PKCE code challenge. */
  usesPkce: boolean;
  /** Apple answers with a form POST; the others redirect back with GET. */
  callbackMethod: "GET" | "POST";
  /** Where to send the browser, with a fresh state and (with PKCE) code verifier to keep until it returns. */
  begin(): { url: URL; state: string; codeVerifier: string | null };
  /**
   * Exchanges the authorization code and reads the profile. `extra` holds further callback fields
   * (Apple sends the user's name once, as JSON in `user`). Throws DomainError "auth.provider_failed".
   */
  fetchProfile(code: string, codeVerifier: string | null, extra: Record<string, string>): Promise<ExternalProfile>;
}
