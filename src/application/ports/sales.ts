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
   *
   * A period that ended before `settled` has its final figures (no order will be paid or refunded
   * in it any more: domain/report.ts, settledBefore): the reader may keep them and read them again
   * instead of summing its orders anew. Without `settled`, every period is summed.
   */
  salesIn(bounds: readonly Date[], top: number, settled?: Date): Promise<SalesFacts>;
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
   * left out with its items and refunds. How many orders were written. Orders written with times
   * in the past change settled periods: whatever figures were kept of them are forgotten, and a
   * report summing them meanwhile keeps nothing. Run in a transaction: its statements are one change.
   */
  importHistory(batch: HistoryBatch): Promise<number>;
}
