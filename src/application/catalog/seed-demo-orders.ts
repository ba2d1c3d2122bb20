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
  orders: number;
  seed: number;
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
 * orders a transaction. Orders whose number is taken are made up for by more; a batch that lands
 * not one order means this seed's history is there already.
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
  for (let written = 0; written < request.orders; ) {
    const batch = history.next(Math.min(BATCH, request.orders - written));
    const landed = await deps.uow.transaction((tx) => tx.sales.importHistory(batch));
    if (landed === 0) throw new DomainError("invalid_input", `The demo orders of seed ${seed} are there already: give another --seed`, { seed });
    written += landed;
  }
  return { orders: request.orders, seed };
}
