import { DomainError } from "./errors.ts";

/** Money is always integer cents inside the system; dollars exist only at the edges. */
export type Cents = number;

export function toDollars(cents: Cents): number {
  return cents / 100;
}

/** Converts a dollar amount from the outside world, refusing fractions of a cent. */
export function dollarsToCents(dollars: number, field = "amount"): Cents {
  const cents = Math.round(dollars * 100);
  if (!Number.isFinite(dollars) || Math.abs(cents - dollars * 100) > 1e-6) {
    throw new DomainError("invalid_input", `${field} must have at most 2 decimals`, { field });
  }
  return cents;
}

export function lineTotal(unitPrice: Cents, quantity: number): Cents {
  return unitPrice * quantity;
}

export function sumCents(amounts: Iterable<Cents>): Cents {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
}
