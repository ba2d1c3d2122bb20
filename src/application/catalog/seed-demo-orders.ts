import { DomainError } from "../../domain/errors.ts";
import { MAX_PAGE_SIZE } from "../../domain/paging.ts";
import type { Deps } from "../ports/index.ts";
import { demoOrders } from "./demo-orders.ts";

/** Orders a transaction: a few statements each, a few thousand rows. */
const BATCH = 2_000;
const MAX_DEMO_ORDERS = 1_000_000;

export interface DemoOrdersRequest {
  orders: number;
  /** The same seed and moment give the same history; a random one when absent. */
  seed?: number;
}

export interface DemoOrdersResult {
  /** Orders added by this run. */
  orders: number;
  seed: number;
  /** Orders of the seed found there already, left by a run stopped midway (0 for a new seed). */
  found: number;
}

const invalid = (path: string, message: string) => new DomainError("invalid_input", "Invalid request", { issues: [{ path, message }] });

/** The request's bounds, judged before anything is written (the CLI asks before it adds the catalog). */
export function checkDemoOrdersRequest(request: DemoOrdersRequest): void {
  if (!Number.isInteger(request.orders) || request.orders < 1 || request.orders > MAX_DEMO_ORDERS)
    throw invalid("orders", `must be a whole number from 1 to ${MAX_DEMO_ORDERS.toLocaleString("en-US")}`);
  const { seed } = request;
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)) throw invalid("seed", "must be a whole number from 0 to 4294967295");
}

/**
 * Adds a year of demo order history (`db:seed --orders N`) over the products on sale, a batch of
 * orders a transaction. Orders whose number is taken are made up for by more. A batch that lands
 * not one order is this seed's, there already (its ids are the seed's, whatever the moment): a run
 * of the seed stopped midway (killed) left the batches it had committed, and the same seed again
 * adds the rest (found by an attack: it refused, saying the whole seed was there). A seed all there
 * is refused.
 */
export async function seedDemoOrders(
  deps: Pick<Deps, "uow" | "clock" | "random">,
  settings: { numberPrefix: string },
  request: DemoOrdersRequest,
): Promise<DemoOrdersResult> {
  checkDemoOrdersRequest(request);
  const seed = request.seed ?? deps.random.below(2 ** 31);
  const { items: products } = await deps.uow.read((db) => db.products.list({ sort: "newest", page: 1, limit: MAX_PAGE_SIZE }));
  if (products.length === 0) throw new DomainError("invalid_input", "There is nothing on sale to order: add products (db:seed adds the demo catalog)");
  const history = demoOrders({ orders: request.orders, seed, now: deps.clock.now(), numberPrefix: settings.numberPrefix, products });
  let added = 0;
  for (let written = 0; written < request.orders; ) {
    const size = Math.min(BATCH, request.orders - written);
    const landed = await deps.uow.transaction((tx) => tx.sales.importHistory(history.next(size)));
    written += landed === 0 ? size : landed;
    added += landed;
  }
  if (added === 0) throw new DomainError("invalid_input", `The demo orders of seed ${seed} are there already: give another --seed`, { seed });
  return { orders: added, seed, found: request.orders - added };
}
