import type { AuditLog, AuditReader } from "./audit.ts";
import type { WebhookEventLog } from "./events.ts";
import type { IdempotencyKeys } from "./idempotency.ts";
import type { CartReader, CartRepository } from "./cart.ts";
import type { LocationReader, LocationRepository, ProductReader, ProductRepository } from "./catalog.ts";
import type {
  CommonPasswords,
  IdentityProvider,
  PasswordHasher,
  PermissionReader,
  PermissionRepository,
  ProviderId,
  SessionReader,
  SessionRepository,
  UserReader,
  UserRepository,
} from "./identity.ts";
import type { ShopMetrics } from "./metrics.ts";
import type { MailOutbox, Mailer, OutboxReader, SuppressionList, SuppressionReader } from "./mail.ts";
import type { OrderReader, OrderRepository } from "./orders.ts";
import type { PaymentGateway, TaxCalculator } from "./payments.ts";
import type { RefundReader, RefundRepository } from "./refunds.ts";
import type { SalesReader, SalesRepository } from "./sales.ts";
import type { Clock, DatabaseProbe, Ids, Logger, Random, RateLimitStore } from "./system.ts";

/** What may be read outside a transaction: single statements, no writes. */
export interface Readers {
  products: ProductReader;
  carts: CartReader;
  orders: OrderReader;
  locations: LocationReader;
  users: UserReader;
  sessions: SessionReader;
  permissions: PermissionReader;
  audit: AuditReader;
  outbox: OutboxReader;
  suppressions: SuppressionReader;
  refunds: RefundReader;
  sales: SalesReader;
}

/** Every repository, as a transaction hands them out. */
export interface Repositories extends Readers {
  products: ProductRepository;
  carts: CartRepository;
  orders: OrderRepository;
  locations: LocationRepository;
  users: UserRepository;
  sessions: SessionRepository;
  permissions: PermissionRepository;
  audit: AuditLog;
  outbox: MailOutbox;
  suppressions: SuppressionList;
  webhookEvents: WebhookEventLog;
  idempotency: IdempotencyKeys;
  refunds: RefundRepository;
  sales: SalesRepository;
}

/** Writes that are one statement each, and so all or nothing without a transaction around them. */
export interface SingleStatementWrites {
  orders: Pick<OrderRepository, "attachPaymentIntent" | "updateAt" | "markIntentStopDue" | "claimIntentStopsDue">;
}

/**
 * The only way to the data. `transaction` runs the work in one transaction: all of its writes
 * land, or none does. `read` is for reads that need no transaction. `write` is for one write of
 * a single statement, which needs no transaction either (on PostgreSQL, two round trips fewer than
 * one): its work makes exactly one call. None may be called from inside a transaction's work (the
 * work has its `tx`; reaching past it would need a second connection and can deadlock a full
 * pool): the adapters refuse it.
 */
export interface UnitOfWork {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  read<T>(work: (db: Readers) => Promise<T>): Promise<T>;
  write<T>(work: (db: SingleStatementWrites) => Promise<T>): Promise<T>;
}

export interface Deps {
  uow: UnitOfWork;
  clock: Clock;
  ids: Ids;
  random: Random;
  database: DatabaseProbe;
  hasher: PasswordHasher;
  commonPasswords: CommonPasswords;
  mailer: Mailer;
  payments: PaymentGateway;
  tax: TaxCalculator;
  /** Failed sign-ins per e-mail. */
  loginAttempts: RateLimitStore;
  /** Requests per client and endpoint (decisions §9). The same store as loginAttempts where the shop runs. */
  rateLimits: RateLimitStore;
  identityProviders: ReadonlyMap<ProviderId, IdentityProvider>;
  logger: Logger;
  /** What the shop counts for its operators (decisions §14). */
  metrics: ShopMetrics;
}
