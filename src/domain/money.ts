import { DomainError } from "./errors.ts";

/** Money is always integer cents inside the system; dollars exist only at the edges. */
export type Cents = number;

export function toDollars(cents: Cents): number {
  return cents / 100;
}

/**
 * Whether a dollar amount is a whole number of cents (0.1 + 0.2 is; 1.005 is not): off by no more
 * than floating point's own error at that size, a few units in the last place. A fixed margin let
 * a fraction of a cent pass as nothing: $0.000000001 was taken for a price of $0 (found by an attack).
 */
export function isWholeCents(dollars: number): boolean {
  const cents = dollars * 100;
  return Number.isFinite(cents) && Math.abs(Math.round(cents) - cents) <= Math.abs(cents) * 16 * Number.EPSILON;
}

/** Converts a dollar amount from the outside world, refusing fractions of a cent. */
export function dollarsToCents(dollars: number, field = "amount"): Cents {
  if (!isWholeCents(dollars)) throw new DomainError("invalid_input", `${field} must have at most 2 decimals`, { field });
  return Math.round(dollars * 100);
}

export function lineTotal(unitPrice: Cents, quantity: number): Cents {
  return unitPrice * quantity;
}

export function sumCents(amounts: Iterable<Cents>): Cents {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
}
