import type { Order } from "../../domain/order.ts";
import type { RefundRecord } from "../../domain/refund.ts";
import type { SalesFacts } from "../../domain/report.ts";
import type { User } from "../../domain/user.ts";

/** What was sold and refunded when, as the sales report reads it (decisions §12). */
export interface SalesReader {
  /**
   * Sums by period, period i being [bounds[i], bounds[i + 1]) (ascending): of the orders paid in it
   * (by their paid time), and of the refunds made in it (by the refunded time of an order that was
   * paid: one sent back the moment it arrived was never a sale). With the `top` products sold most
   * over the whole range, by units, then revenue, then id. Periods with nothing are left out.
   */
  salesIn(bounds: readonly Date[], top: number): Promise<SalesFacts>;
}

/** A part of an order history written at once (the demo and bench data of db:seed --orders). */
export interface HistoryBatch {
  customers: readonly User[];
  /** Whole: items, statuses, payment times. */
  orders: readonly Order[];
  refunds: readonly RefundRecord[];
}

export interface SalesRepository extends SalesReader {
  /**
   * Writes the batch in a few statements: customers not there yet (by id or e-mail), then the
   * orders whose id and number are free, with their items and refunds; an order that is not free is
   * left out with its items and refunds. How many orders were written.
   */
  importHistory(batch: HistoryBatch): Promise<number>;
}
