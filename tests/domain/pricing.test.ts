import { describe, expect, test } from "bun:test";
import { addressLines, addressProblems, normalizeAddress } from "../../src/domain/address.ts";
import { orderTotals, shippingCents } from "../../src/domain/pricing.ts";

const us = (state: string) => ({ country: "US", state });
const line = (unitPrice: number, quantity: number) => ({ unitPrice, quantity });

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

describe("order totals", () => {
  test("total = subtotal + shipping + tax − discount, in integer cents", () => {
    const lines = [
      { unitPrice: 1299, quantity: 3 },
      { unitPrice: 899, quantity: 1 },
    ];
    expect(orderTotals(lines, 699, 389)).toEqual({ subtotal: 4796, shippingCost: 699, tax: 389, discountAmount: 0, total: 5884 });
    expect(orderTotals(lines, 0, 0, 500)).toMatchObject({ total: 4296 });
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
    expect(orderTotals(lines, 0, 0)).toEqual({ subtotal, shippingCost: 0, tax: 0, discountAmount: 0, total: subtotal });
  });

  test("500 generated orders of up to 60 lines add up to the cent, checked against a sum in BigInt", () => {
    const random = seededRandom(20261123);
    const upTo = (max: number) => 1 + Math.floor(random() * max);
    for (let order = 0; order < 500; order++) {
      const lines = Array.from({ length: upTo(60) }, () => line(upTo(99_999), upTo(99)));
      const [shipping, tax, discount] = [upTo(2_499), upTo(100_000), upTo(1_000)];
      const subtotal = lines.reduce((sum, { unitPrice, quantity }) => sum + BigInt(unitPrice) * BigInt(quantity), 0n);
      const total = subtotal + BigInt(shipping) + BigInt(tax) - BigInt(discount);
      expect({ order, ...orderTotals(lines, shipping, tax, discount) }).toEqual({
        order,
        subtotal: Number(subtotal),
        shippingCost: shipping,
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
