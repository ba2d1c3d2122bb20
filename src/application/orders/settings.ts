import { PAYMENT_ATTEMPT_ABANDONED_MS } from "../../domain/payment.ts";

/** Decisions §1: ORDER_NUMBER_PREFIX and ORDER_PAYMENT_TTL_MINUTES; §15: HOUSEKEEPING_GRACE_SECONDS. And their defaults. */
export interface OrderSettings {
  numberPrefix: string;
  paymentTtlMinutes: number;
  /**
   * How long a checkout may go without storing its payment intent, and a payment attempt without
   * settling, before they count as abandoned by a process that died: housekeeping then finishes
   * them, and a new attempt at paying takes the abandoned one over.
   */
  graceMs: number;
}

export const DEFAULT_ORDER_SETTINGS: OrderSettings = { numberPrefix: "SF", paymentTtlMinutes: 60, graceMs: PAYMENT_ATTEMPT_ABANDONED_MS };
