import type { AuditAction, AuditEntry } from "../domain/audit.ts";
import type { CartItem, CartLine } from "../domain/cart.ts";
import type { Location, LocationQuery, NearbyQuery } from "../domain/location.ts";
import type { Paged } from "../domain/paging.ts";
import type { Permission } from "../domain/permissions.ts";
import type { Product, ProductQuery } from "../domain/product.ts";
import type { User, UserRole } from "../domain/user.ts";

export interface ProductRepository {
  /** Active products matching the query, one page of them, and how many match in all. */
  list(query: ProductQuery): Promise<Paged<Product>>;
  /** Looks a product up by id or by slug, active or not. */
  findByIdOrSlug(key: string): Promise<Product | null>;
  findById(id: string): Promise<Product | null>;
  /** Throws DomainError "product.conflict" when the sku or slug is taken. */
  create(product: Product): Promise<void>;
  /** Throws DomainError "product.conflict" when the new sku or slug is taken. Null when there is no such product. */
  update(id: string, changes: ProductChanges): Promise<Product | null>;
}

export type ProductChanges = Partial<Omit<Product, "id" | "createdAt" | "updatedAt">> & { updatedAt: Date };

export interface CartAddition {
  /** Used only when the line is new. */
  id: string;
  userId: string;
  productId: string;
  quantity: number;
  at: Date;
}

export interface CartSummary {
  lineCount: number;
  /** The quantity of the asked-for product already in the cart; 0 when it has no line. */
  quantityInCart: number;
}

export interface CartRepository {
  /**
   * Holds the user's cart until the transaction ends, so that the checks and the write after them
   * see the same cart, and then says what it holds.
   */
  lockForChange(userId: string, productId: string | null): Promise<CartSummary>;
  /** The user's lines with their products, oldest first, including products taken off sale. */
  lines(userId: string): Promise<CartLine[]>;
  findById(id: string): Promise<CartItem | null>;
  /** Adds to the user's line for the product, creating it when missing: one atomic upsert. */
  add(addition: CartAddition): Promise<CartItem>;
  setQuantity(id: string, quantity: number, at: Date): Promise<CartItem | null>;
  remove(id: string): Promise<boolean>;
}

export type LocationWithDistance = Location & { distanceMiles: number };

export interface LocationRepository {
  list(query: LocationQuery): Promise<Paged<Location>>;
  /** Locations within the radius, nearest first, at most `limit`; `total` counts all within it. */
  nearby(query: NearbyQuery): Promise<Paged<LocationWithDistance>>;
  findByNameAndPostalCode(name: string, postalCode: string): Promise<Location | null>;
  create(location: Location): Promise<void>;
}

export type UserChanges = Partial<Pick<User, "name" | "image" | "role" | "passwordHash" | "sessionsValidAfter" | "isEmailVerified">> & {
  updatedAt: Date;
};

export interface UserRepository {
  findById(id: string): Promise<User | null>;
  /** By normalized (trimmed, lowercased) e-mail. */
  findByEmail(email: string): Promise<User | null>;
  /** Throws DomainError "auth.email_taken" when the e-mail is in use. */
  create(user: User): Promise<void>;
  update(id: string, changes: UserChanges): Promise<User | null>;
  findFundraiserId(userId: string): Promise<string | null>;
  findByIdentity(provider: string, providerAccountId: string): Promise<User | null>;
  linkIdentity(provider: string, providerAccountId: string, userId: string): Promise<void>;
}

export interface RolePermission {
  role: UserRole;
  permission: Permission;
}

export interface PermissionRepository {
  /** Every row; none when the table is empty or missing. */
  all(): Promise<RolePermission[]>;
  /** False when the role already had it. */
  grant(role: UserRole, permission: Permission): Promise<boolean>;
  /** False when the role did not have it. */
  revoke(role: UserRole, permission: Permission): Promise<boolean>;
}

export interface AuditFilter {
  action?: AuditAction;
  entityType?: string;
  entityId?: string;
  userId?: string;
}

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  list(filter: AuditFilter): Promise<AuditEntry[]>;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

export type OutboxStatus = "pending" | "sent" | "failed";

export interface OutboxMessage extends OutgoingMail {
  id: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

/** Mail waiting to be delivered, written in the same transaction as the change that causes it. */
export interface MailOutbox {
  enqueue(mail: OutgoingMail & { id: string; createdAt: Date }): Promise<void>;
  /**
   * Takes up to `limit` pending messages due at `now`, counts the attempt and hides them until
   * `leaseUntil`, so that two workers never send the same message at once and a crashed worker's
   * messages come back.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<OutboxMessage[]>;
  markSent(id: string, at: Date): Promise<void>;
  /** Schedules another attempt at `retryAt`, or gives up (status "failed", kept for an operator) when it is null. */
  markFailed(id: string, error: string, retryAt: Date | null): Promise<void>;
  list(): Promise<OutboxMessage[]>;
}

/** The repositories that take part in a transaction. */
export interface Repositories {
  products: ProductRepository;
  carts: CartRepository;
  locations: LocationRepository;
  users: UserRepository;
  permissions: PermissionRepository;
  audit: AuditLog;
  outbox: MailOutbox;
}

export interface UnitOfWork {
  /** Runs the work in one transaction: all of its writes land, or none does. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}

export interface Mailer {
  /** Delivers one message; rejects when the mail server refuses or cannot be reached. */
  send(mail: OutgoingMail): Promise<void>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

export interface WindowCount {
  count: number;
  resetAt: Date;
}

/** Fixed-window counters (login throttling, rate limits). */
export interface RateLimitStore {
  increment(key: string, windowMs: number, now: Date): Promise<WindowCount>;
  peek(key: string, now: Date): Promise<WindowCount | null>;
  reset(key: string): Promise<void>;
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
  authorizationUrl(state: string, codeVerifier: string | null): URL;
  /**
   * Exchanges the authorization code and reads the profile. `extra` holds further callback fields
   * (Apple sends the user's name once, as JSON in `user`). Throws DomainError "auth.provider_failed".
   */
  fetchProfile(code: string, codeVerifier: string | null, extra: Record<string, string>): Promise<ExternalProfile>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new CUID2. */
  next(): string;
}

export interface DatabaseProbe {
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = Record<LogLevel, (event: string, fields?: Record<string, unknown>) => void>;

export interface Deps extends Repositories {
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  database: DatabaseProbe;
  hasher: PasswordHasher;
  mailer: Mailer;
  /** Failed sign-ins per e-mail. */
  loginAttempts: RateLimitStore;
  identityProviders: ReadonlyMap<ProviderId, IdentityProvider>;
  logger: Logger;
}
