/** Decisions §1: ORDER_NUMBER_PREFIX and ORDER_PAYMENT_TTL_MINUTES, and their defaults. */
export interface OrderSettings {
  numberPrefix: string;
  paymentTtlMinutes: number;
}

export const DEFAULT_ORDER_SETTINGS: OrderSettings = { numberPrefix: "SF", paymentTtlMinutes: 60 };
