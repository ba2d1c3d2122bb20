import { describe, expect, test } from "bun:test";
import { addressLines, addressProblems, normalizeAddress } from "../../src/domain/address.ts";
import { priceOrder, shippingCents } from "../../src/domain/pricing.ts";

const us = (state: string) => ({ country: "US", state });
// Shipping abroad is one flat rate, never free: the sums below are the lines' alone.
const abroad = { country: "CA", state: "ON" };

/** mulberry32: the same numbers on every run, so a failing case can be run again. */
function seededRandom(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe("shipping (decisions §3)", () => {
  test.each([
    ["TX, $49.99", us("TX"), 4999, 699],
    ["TX, $50.00", us("TX"), 5000, 0],
    ["TX, $0.01", us("TX"), 1, 699],
    ["AK, $49.99: ×1.5, rounded half up", us("AK"), 4999, 1049],
    ["HI, $10.00", us("HI"), 1000, 1049],
    ["AK, $50.00: free like anywhere in the US", us("AK"), 5000, 0],
    ["PR, $49.99: ×2", us("PR"), 4999, 1398],
    ["PR, $50.00", us("PR"), 5000, 0],
    ["Canada, $49.99", { country: "CA", state: "ON" }, 4999, 2499],
    ["Canada, $500.00: never free", { country: "CA", state: "ON" }, 50000, 2499],
  ])("%s → %p cents", (_, address, subtotal, expected) => {
    expect(shippingCents(address, subtotal)).toBe(expected);
  });
});

describe("priceOrder: lines, where they ship and tax give the totals (decisions §3)", () => {
  const line = (unitPrice: number, quantity = 1) => ({ unitPrice, quantity });

  test("total = subtotal + shipping + tax − discount, in integer cents", () => {
    const lines = [line(1299, 3), line(899)];
    expect(priceOrder(lines, us("TX"), 389)).toEqual({ subtotal: 4796, shippingCost: 699, tax: 389, discountAmount: 0, total: 5884 });
    expect(priceOrder(lines, us("TX"), 0, 500)).toEqual({ subtotal: 4796, shippingCost: 699, tax: 0, discountAmount: 500, total: 4995 });
  });

  test.each([
    ["TX, $49.99 in two lines", us("TX"), [line(1999), line(1000, 3)], 4999, 699],
    ["TX, $50.00 in two lines: free", us("TX"), [line(2000), line(1000, 3)], 5000, 0],
    ["AK, $49.99: ×1.5", us("AK"), [line(4999)], 4999, 1049],
    ["AK, $50.00: free", us("AK"), [line(2500, 2)], 5000, 0],
    ["HI, $49.99: ×1.5", us("HI"), [line(4999)], 4999, 1049],
    ["PR, $49.99: ×2", us("PR"), [line(4999)], 4999, 1398],
    ["PR, $50.00: free", us("PR"), [line(5000)], 5000, 0],
    ["Canada, $49.99", { country: "CA", state: "ON" }, [line(4999)], 4999, 2499],
    ["Canada, $500.00: never free", { country: "CA", state: "ON" }, [line(5000, 10)], 50000, 2499],
  ])("%s", (_, address, lines, subtotal, shipping) => {
    expect(priceOrder(lines, address, 123)).toEqual({ subtotal, shippingCost: shipping, tax: 123, discountAmount: 0, total: subtotal + shipping + 123 });
  });

  // Worked out by hand. Added up in dollars, the first five drift (0.30000000000000004 twice,
  // 3.3000000000000003, 28.709999999999997, 50.85999999999999).
  test.each([
    ["10¢ + 20¢", 30, [line(10, 1), line(20, 1)]],
    ["10¢ × 3", 30, [line(10, 3)]],
    ["$1.10 × 3", 330, [line(110, 3)]],
    ["29¢ × 99", 2871, [line(29, 99)]],
    ["$16.95 × 3 + 1¢", 5086, [line(1695, 3), line(1, 1)]],
    ["$49.99 + 1¢: free shipping's threshold exactly", 5000, [line(4999, 1), line(1, 1)]],
    ["the largest total, $999,999.99, in one line", 99_999_999, [line(99_999_999, 1)]],
    ["no lines", 0, []],
  ])("%s is %p cents", (_, subtotal, lines) => {
    expect(priceOrder(lines, abroad, 0)).toEqual({ subtotal, shippingCost: 2499, tax: 0, discountAmount: 0, total: subtotal + 2499 });
  });

  test("500 generated orders of up to 60 lines add up to the cent, checked against a sum in BigInt", () => {
    const random = seededRandom(20261123);
    const upTo = (max: number) => 1 + Math.floor(random() * max);
    for (let order = 0; order < 500; order++) {
      const lines = Array.from({ length: upTo(60) }, () => line(upTo(99_999), upTo(99)));
      const [tax, discount] = [upTo(100_000), upTo(1_000)];
      const subtotal = lines.reduce((sum, { unitPrice, quantity }) => sum + BigInt(unitPrice) * BigInt(quantity), 0n);
      const total = subtotal + 2499n + BigInt(tax) - BigInt(discount);
      expect({ order, ...priceOrder(lines, abroad, tax, discount) }).toEqual({
        order,
        subtotal: Number(subtotal),
        shippingCost: 2499,
        tax,
        discountAmount: discount,
        total: Number(total),
      });
    }
  });
});

describe("addresses", () => {
  test("country defaults to US, codes are upper-cased, an empty second line is dropped, and Puerto Rico ships as the state PR", () => {
    expect(normalizeAddress({ address1: "1 Main St", address2: "", city: "Austin", state: "tx", postalCode: "78701" })).toEqual({
      address1: "1 Main St",
      address2: null,
      city: "Austin",
      state: "TX",
      postalCode: "78701",
      country: "US",
    });
    expect(normalizeAddress({ address1: "1 Calle Sol", city: "San Juan", state: "San Juan", postalCode: "00901", country: "pr" })).toMatchObject({
      country: "US",
      state: "PR",
    });
    expect(normalizeAddress({ address1: "1 Queen St", city: "Toronto", state: "on", postalCode: "M5H 2N2", country: "ca" })).toMatchObject({
      country: "CA",
      state: "on",
    });
  });

  test("a US address needs a state code and a ZIP; others are taken as written", () => {
    const address = (state: string, postalCode: string, country = "US") => normalizeAddress({ address1: "1 Main St", city: "X", state, postalCode, country });
    expect(addressProblems(address("TX", "78701"))).toEqual([]);
    expect(addressProblems(address("TX", "78701-1234"))).toEqual([]);
    expect(addressProblems(address("Texas", "787"))).toEqual([
      { field: "state", message: "must be a US state code (two letters, e.g. TX)" },
      { field: "postalCode", message: "must be a ZIP code (12345 or 12345-6789)" },
    ]);
    expect(addressProblems(address("Ontario", "M5H 2N2", "CA"))).toEqual([]);
  });

  test("as text: one line each, the second only when given (decisions §2)", () => {
    const base = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
    expect(addressLines(normalizeAddress({ ...base, address2: "Apt 4" }))).toBe("1 Main St\nApt 4\nAustin, TX 78701\nUS");
    expect(addressLines(normalizeAddress(base))).toBe("1 Main St\nAustin, TX 78701\nUS");
  });
});
