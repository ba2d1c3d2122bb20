/** Decisions §1 and §15: ORDER_NUMBER_PREFIX, ORDER_PAYMENT_TTL_MINUTES and MAX_UNPAID_ORDERS, and their defaults. */
export interface OrderSettings {
  numberPrefix: string;
  paymentTtlMinutes: number;
  /** Unpaid PENDING orders a customer may hold at once; a checkout past it is refused. */
  maxUnpaidOrders: number;
}

export const DEFAULT_ORDER_SETTINGS: OrderSettings = { numberPrefix: "SF", paymentTtlMinutes: 60, maxUnpaidOrders: 3 };
