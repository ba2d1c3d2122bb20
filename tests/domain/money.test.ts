import { describe, expect, test } from "bun:test";
import { DomainError } from "../../src/domain/errors.ts";
import { dollarsToCents, lineTotal, sumCents, toDollars } from "../../src/domain/money.ts";

describe("money", () => {
  test("dollars become whole cents without floating-point drift", () => {
    expect(dollarsToCents(12.99)).toBe(1299);
    expect(dollarsToCents(0.1 + 0.2)).toBe(30);
    expect(dollarsToCents(19.6)).toBe(1960);
    expect(dollarsToCents(0)).toBe(0);
    // Sums a client made in floating point, and the largest prices.
    expect(dollarsToCents([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1].reduce((a, b) => a + b))).toBe(100);
    expect(dollarsToCents(999_999.99)).toBe(99_999_999);
    expect(dollarsToCents(19.99 * 3)).toBe(5997);
  });

  test("a fraction of a cent is refused, naming the field", () => {
    expect(() => dollarsToCents(1.005, "minPrice")).toThrow(DomainError);
    expect(() => dollarsToCents(1.005, "minPrice")).toThrow("minPrice must have at most 2 decimals");
    expect(() => dollarsToCents(Number.NaN)).toThrow(DomainError);
    // Tiny fractions are not nothing: each was once taken for $0 (found by an attack).
    for (const tiny of [0.000000001, 1e-7, 5e-324, -1e-9, 12.990000001]) expect(() => dollarsToCents(tiny)).toThrow("amount must have at most 2 decimals");
  });

  test("sums are done in cents and shown as dollars with at most two decimals", () => {
    const total = sumCents([lineTotal(1099, 3), lineTotal(1, 1), 2]);
    expect(total).toBe(3300);
    expect(toDollars(lineTotal(333, 3))).toBe(9.99);
    expect(JSON.stringify(toDollars(1299))).toBe("12.99");
  });
});
