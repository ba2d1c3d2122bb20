import type { Location } from "../../domain/location.ts";
import type { Product } from "../../domain/product.ts";
import type { Repositories, UnitOfWork } from "../../application/ports.ts";
import { createMemoryLocationRepository } from "./location-repository.ts";
import { createMemoryProductRepository } from "./product-repository.ts";

export interface MemoryState {
  products: Map<string, Product>;
  locations: Map<string, Location>;
}

export function emptyMemoryState(): MemoryState {
  return { products: new Map(), locations: new Map() };
}

export function createMemoryRepositories(state: MemoryState): Repositories {
  return {
    products: createMemoryProductRepository(state.products),
    locations: createMemoryLocationRepository(state.locations),
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
