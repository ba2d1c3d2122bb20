import type { AuditEntry } from "../../domain/audit.ts";
import type { CartItem } from "../../domain/cart.ts";
import type { Location } from "../../domain/location.ts";
import type { Order } from "../../domain/order.ts";
import type { Product } from "../../domain/product.ts";
import type { RefundRecord } from "../../domain/refund.ts";
import type { Session } from "../../domain/session.ts";
import type { User } from "../../domain/user.ts";
import type { Repositories, UnitOfWork } from "../../application/ports/index.ts";
import type { RolePermission } from "../../application/ports/identity.ts";
import type { ReceivedEvent } from "../../application/ports/events.ts";
import type { OutboxMessage } from "../../application/ports/mail.ts";
import { refuseInsideTransaction, runAsTransaction } from "../transaction-scope.ts";
import { createMemoryAuditLog } from "./audit-log.ts";
import { createMemoryCartRepository } from "./cart-repository.ts";
import { type StoredKey, createMemoryIdempotencyKeys } from "./idempotency-keys.ts";
import { createMemoryLocationRepository } from "./location-repository.ts";
import { createMemoryMailOutbox } from "./mail-outbox.ts";
import { createMemoryOrderRepository } from "./order-repository.ts";
import { createMemoryPermissionRepository } from "./permission-repository.ts";
import { createMemoryProductRepository } from "./product-repository.ts";
import { createMemoryRefundRepository } from "./refund-repository.ts";
import { createMemorySalesRepository } from "./sales-repository.ts";
import { createMemorySessionRepository } from "./session-repository.ts";
import { createMemorySuppressionList } from "./suppression-list.ts";
import { createMemoryUserRepository } from "./user-repository.ts";
import { createMemoryWebhookEventLog } from "./webhook-event-log.ts";

/** Every in-memory table; each one a Map, so a transaction can snapshot and restore them alike. */
export interface MemoryState {
  products: Map<string, Product>;
  cartItems: Map<string, CartItem>;
  orders: Map<string, Order>;
  locations: Map<string, Location>;
  users: Map<string, User>;
  identities: Map<string, string>;
  fundraisers: Map<string, string>;
  sessions: Map<string, Session>;
  permissions: Map<string, RolePermission>;
  audit: Map<string, AuditEntry>;
  outbox: Map<string, OutboxMessage>;
  webhookEvents: Map<string, ReceivedEvent>;
  idempotencyKeys: Map<string, StoredKey>;
  suppressions: Map<string, { reason: "bounced" | "complained"; at: Date }>;
  refunds: Map<string, RefundRecord>;
  /** Since when each order's payment intent is due to be cancelled (OrderRepository.markIntentStopDue), by order id. */
  intentStopsDue: Map<string, Date>;
}

export function emptyMemoryState(): MemoryState {
  return {
    products: new Map(),
    cartItems: new Map(),
    orders: new Map(),
    locations: new Map(),
    users: new Map(),
    identities: new Map(),
    fundraisers: new Map(),
    sessions: new Map(),
    permissions: new Map(),
    audit: new Map(),
    outbox: new Map(),
    webhookEvents: new Map(),
    idempotencyKeys: new Map(),
    suppressions: new Map(),
    refunds: new Map(),
    intentStopsDue: new Map(),
  };
}

export function createMemoryRepositories(state: MemoryState): Repositories {
  return {
    products: createMemoryProductRepository(state.products),
    carts: createMemoryCartRepository(state.cartItems, state.products, state.audit),
    orders: createMemoryOrderRepository(state.orders, state.products, state.users, state.audit, state.intentStopsDue),
    locations: createMemoryLocationRepository(state.locations),
    users: createMemoryUserRepository(state),
    sessions: createMemorySessionRepository(state.sessions),
    permissions: createMemoryPermissionRepository(state.permissions),
    audit: createMemoryAuditLog(state.audit),
    outbox: createMemoryMailOutbox(state.outbox),
    suppressions: createMemorySuppressionList(state.suppressions),
    webhookEvents: createMemoryWebhookEventLog(state.webhookEvents),
    idempotency: createMemoryIdempotencyKeys(state.idempotencyKeys),
    refunds: createMemoryRefundRepository(state.refunds),
    sales: createMemorySalesRepository(state),
  };
}

/**
 * Transactions for the in-memory store: one at a time, and a failed one puts every map back as it
 * was, so use-case tests see the same all-or-nothing behaviour as PostgreSQL gives. Reads wait for
 * the transaction in progress, so they never see half of one.
 */
export function createMemoryUnitOfWork(state: MemoryState, repos: Repositories): UnitOfWork {
  let queue: Promise<unknown> = Promise.resolve();
  function serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }
  return {
    async transaction(work) {
      refuseInsideTransaction("transaction");
      return serialized(() =>
        runAsTransaction(async () => {
          const snapshot = structuredClone(state);
          try {
            return await work(repos);
          } catch (error) {
            for (const key of Object.keys(state) as (keyof MemoryState)[]) {
              const live = state[key] as Map<string, unknown>;
              live.clear();
              for (const [id, value] of snapshot[key]) live.set(id, value);
            }
            throw error;
          }
        }),
      );
    },
    async read(work) {
      refuseInsideTransaction("read");
      return serialized(() => work(repos));
    },
    async write(work) {
      refuseInsideTransaction("write");
      return serialized(() => work(repos));
    },
  };
}
