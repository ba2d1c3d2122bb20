import { PAYMENT_ATTEMPT_ABANDONED_MS } from "../../domain/payment.ts";

/** Decisions §1: ORDER_NUMBER_PREFIX and ORDER_PAYMENT_TTL_MINUTES; §15: MAX_UNPAID_ORDERS and HOUSEKEEPING_GRACE_SECONDS. And their defaults. */
export interface OrderSettings {
  numberPrefix: string;
  paymentTtlMinutes: number;
  /** Unpaid PENDING orders a customer may hold at once; a checkout past it is refused. */
  maxUnpaidOrders: number;
  /**
   * How long a checkout may go without storing its payment intent, and a payment attempt without
   * settling, before they count as abandoned by a process that died: housekeeping then finishes
   * them, and a new attempt at paying takes the abandoned one over.
   */
  graceMs: number;
}

export const DEFAULT_ORDER_SETTINGS: OrderSettings = { numberPrefix: "SF", paymentTtlMinutes: 60, maxUnpaidOrders: 3, graceMs: PAYMENT_ATTEMPT_ABANDONED_MS };
