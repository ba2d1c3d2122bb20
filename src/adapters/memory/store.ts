import type { AuditEntry } from "../../domain/audit.ts";
import type { CartItem } from "../../domain/cart.ts";
import type { Location } from "../../domain/location.ts";
import type { Product } from "../../domain/product.ts";
import type { User } from "../../domain/user.ts";
import type { OutboxMessage, Repositories, RolePermission, UnitOfWork } from "../../application/ports.ts";
import { createMemoryAuditLog } from "./audit-log.ts";
import { createMemoryCartRepository } from "./cart-repository.ts";
import { createMemoryLocationRepository } from "./location-repository.ts";
import { createMemoryMailOutbox } from "./mail-outbox.ts";
import { createMemoryPermissionRepository } from "./permission-repository.ts";
import { createMemoryProductRepository } from "./product-repository.ts";
import { createMemoryUserRepository } from "./user-repository.ts";

/** Every in-memory table; each one a Map, so a transaction can snapshot and restore them alike. */
export interface MemoryState {
  products: Map<string, Product>;
  cartItems: Map<string, CartItem>;
  locations: Map<string, Location>;
  users: Map<string, User>;
  identities: Map<string, string>;
  fundraisers: Map<string, string>;
  permissions: Map<string, RolePermission>;
  audit: Map<string, AuditEntry>;
  outbox: Map<string, OutboxMessage>;
}

export function emptyMemoryState(): MemoryState {
  return {
    products: new Map(),
    cartItems: new Map(),
    locations: new Map(),
    users: new Map(),
    identities: new Map(),
    fundraisers: new Map(),
    permissions: new Map(),
    audit: new Map(),
    outbox: new Map(),
  };
}

export function createMemoryRepositories(state: MemoryState): Repositories {
  return {
    products: createMemoryProductRepository(state.products),
    carts: createMemoryCartRepository(state.cartItems, state.products),
    locations: createMemoryLocationRepository(state.locations),
    users: createMemoryUserRepository(state),
    permissions: createMemoryPermissionRepository(state.permissions),
    audit: createMemoryAuditLog(state.audit),
    outbox: createMemoryMailOutbox(state.outbox),
  };
}

/**
 * Transactions for the in-memory store: one at a time, and a failed one puts every map back as it
 * was, so use-case tests see the same all-or-nothing behaviour as PostgreSQL gives.
 */
export function createMemoryUnitOfWork(state: MemoryState, repos: Repositories): UnitOfWork {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
      const run = async () => {
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
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
