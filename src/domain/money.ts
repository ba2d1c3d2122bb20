import { DomainError } from "./errors.ts";

/** Money is always integer cents inside the system; dollars exist only at the edges. */
export type Cents = number;

export function toDollars(cents: Cents): number {
  return cents / 100;
}

/** Whether a dollar amount is a whole number of cents (0.1 + 0.2 is; 1.005 is not). */
export function isWholeCents(dollars: number): boolean {
  return Number.isFinite(dollars) && Math.abs(Math.round(dollars * 100) - dollars * 100) <= 1e-6;
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
