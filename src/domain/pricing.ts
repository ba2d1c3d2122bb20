import type { Address } from "./address.ts";
import { type Cents, lineTotal, sumCents } from "./money.ts";

/** Decisions §3, in cents. */
export const SHIPPING = {
  flatUs: 699,
  freeFromSubtotal: 5000,
  abroad: 2499,
  /** The flat rate is multiplied for these states, and rounded half up to the cent. */
  surcharge: { AK: 1.5, HI: 1.5, PR: 2 } as Readonly<Record<string, number>>,
} as const;

/**
 * What shipping costs: in the US $6.99, free from a $50.00 subtotal, with AK and HI at 1.5 times
 * and PR at twice the rate; anywhere else $24.99, never free. Not taxed.
 */
export function shippingCents(address: Pick<Address, "country" | "state">, subtotal: Cents): Cents {
  if (address.country !== "US") return SHIPPING.abroad;
  if (subtotal >= SHIPPING.freeFromSubtotal) return 0;
  return Math.round(SHIPPING.flatUs * (SHIPPING.surcharge[address.state] ?? 1));
}

export interface PricedLine {
  unitPrice: Cents;
  quantity: number;
}

export interface OrderTotals {
  subtotal: Cents;
  shippingCost: Cents;
  tax: Cents;
  discountAmount: Cents;
  total: Cents;
}

export function subtotalOf(lines: readonly PricedLine[]): Cents {
  return sumCents(lines.map((line) => lineTotal(line.unitPrice, line.quantity)));
}

/**
 * Decisions §3: an order's totals from its lines, where it ships and its tax, the one place they are
 * worked out: shipping by the rules above on the subtotal, total = subtotal + shipping + tax −
 * discount, all in integer cents (no discounts exist yet).
 */
export function priceOrder(lines: readonly PricedLine[], shippingAddress: Pick<Address, "country" | "state">, tax: Cents, discount: Cents = 0): OrderTotals {
  const subtotal = subtotalOf(lines);
  const shippingCost = shippingCents(shippingAddress, subtotal);
  return { subtotal, shippingCost, tax, discountAmount: discount, total: subtotal + shippingCost + tax - discount };
}
