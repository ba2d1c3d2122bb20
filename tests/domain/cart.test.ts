import { describe, expect, test } from "bun:test";
import { MAX_CART_LINES, assertLineQuantity, assertRoomForLine, cartTotals, linesToPutBack, makeRoomForLine, viewCart } from "../../src/domain/cart.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { aProduct } from "../support/builders.ts";

/** The DomainError the call threw; fails the test when it returned or threw something else. */
function domainErrorOf(call: () => unknown): DomainError {
  try {
    call();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw new Error(`expected a DomainError, got ${String(error)}`);
  }
  throw new Error("expected a DomainError, but nothing was thrown");
}

describe("cartTotals", () => {
  test("sums in integer cents, counting lines and units", () => {
    const totals = cartTotals([
      { quantity: 3, product: { price: 333 } },
      { quantity: 1, product: { price: 1 } },
    ]);
    expect(totals).toEqual({ itemCount: 2, totalQuantity: 4, subtotal: 1000 });
    expect(Number.isInteger(totals.subtotal)).toBe(true);
  });

  test("an empty cart is all zeros", () => {
    expect(cartTotals([])).toEqual({ itemCount: 0, totalQuantity: 0, subtotal: 0 });
  });
});

describe("viewCart", () => {
  test("a line whose product is off sale is left out of the lines and the totals", () => {
    const onSale = { quantity: 2, product: { price: 1099, isActive: true } };
    const retired = { quantity: 5, product: { price: 700, isActive: false } };
    expect(viewCart([retired, onSale])).toEqual({ lines: [onSale], itemCount: 1, totalQuantity: 2, subtotal: 2198 });
    expect(viewCart([retired])).toEqual({ lines: [], itemCount: 0, totalQuantity: 0, subtotal: 0 });
  });
});

describe("assertLineQuantity", () => {
  test("a quantity within stock passes", () => {
    const product = aProduct({ inventory: 5 });
    expect(() => assertLineQuantity(product, 1)).not.toThrow();
    expect(() => assertLineQuantity(product, 5)).not.toThrow();
    expect(() => assertLineQuantity(product, 5, 3)).not.toThrow();
  });

  test("a quantity above the inventory is inventory.insufficient, with the details", () => {
    const product = aProduct({ name: "Ghost Pepper Fury", inventory: 5 });
    const error = domainErrorOf(() => assertLineQuantity(product, 6, 2));
    expect(error.code).toBe("inventory.insufficient");
    expect(error.message).toBe("Insufficient inventory");
    expect(error.details).toEqual({
      productId: product.id,
      productName: "Ghost Pepper Fury",
      requested: 6,
      inCart: 2,
      available: 5,
    });
  });

  test("inCart defaults to 0 in the details", () => {
    const product = aProduct({ inventory: 2 });
    const error = domainErrorOf(() => assertLineQuantity(product, 3));
    expect(error.code).toBe("inventory.insufficient");
    expect(error.details).toEqual({ productId: product.id, productName: product.name, requested: 3, inCart: 0, available: 2 });
  });

  test("a quantity of 100 is cart.quantity_limit even when the inventory is larger", () => {
    const product = aProduct({ inventory: 1000 });
    expect(() => assertLineQuantity(product, 99)).not.toThrow();
    const error = domainErrorOf(() => assertLineQuantity(product, 100));
    expect(error.code).toBe("cart.quantity_limit");
  });

  test("a product with no inventory refuses a single unit", () => {
    const product = aProduct({ inventory: 0 });
    const error = domainErrorOf(() => assertLineQuantity(product, 1));
    expect(error.code).toBe("inventory.insufficient");
    expect(error.details).toMatchObject({ requested: 1, available: 0 });
  });
});

describe("assertRoomForLine", () => {
  test("49 lines leave room for one more", () => {
    expect(() => assertRoomForLine(0)).not.toThrow();
    expect(() => assertRoomForLine(49)).not.toThrow();
  });

  test("50 lines are cart.too_many_lines", () => {
    expect(domainErrorOf(() => assertRoomForLine(50)).code).toBe("cart.too_many_lines");
  });
});

describe("makeRoomForLine: lines off sale take no place the shopper sees, and give way, oldest first, when the lines kept fill the cart", () => {
  const hidden = (n: number) => Array.from({ length: n }, (_, i) => `off-${i}`);
  test("room left: nothing gives way", () => {
    expect(makeRoomForLine(0, [])).toEqual([]);
    expect(makeRoomForLine(39, hidden(10))).toEqual([]);
  });
  test("the lines kept fill the cart: as many of the oldest off sale as a new line needs", () => {
    expect(makeRoomForLine(40, hidden(10))).toEqual(["off-0"]);
    expect(makeRoomForLine(49, hidden(1))).toEqual(["off-0"]);
    // More kept than the cap (no change makes that; the rule holds all the same): back under it.
    expect(makeRoomForLine(45, hidden(8))).toEqual(["off-0", "off-1", "off-2", "off-3"]);
  });
  test("50 lines on sale are cart.too_many_lines, whatever is off sale", () => {
    expect(domainErrorOf(() => makeRoomForLine(50, hidden(3))).code).toBe("cart.too_many_lines");
  });
});

describe("linesToPutBack (an order that could not go ahead, back in the cart)", () => {
  const line = (productId: string, quantity: number, onSale = true) => ({ id: `line-${productId}`, productId, quantity, onSale });

  test("a product the cart lacks gets its line; one it holds gains the quantity, up to 99 a line, the rest left out", () => {
    const cart = [line("held", 3), line("nearly-full", 97)];
    const goods = [
      { productId: "new", quantity: 2 },
      { productId: "held", quantity: 4 },
      { productId: "nearly-full", quantity: 5 },
    ];
    expect(linesToPutBack(cart, goods)).toEqual({
      putBack: [
        { productId: "new", quantity: 2 },
        { productId: "held", quantity: 4 },
        { productId: "nearly-full", quantity: 2 },
      ],
      leftOut: [{ productId: "nearly-full", quantity: 3, reason: "line_full" }],
      givingWay: [],
    });
    expect(linesToPutBack([line("full", 99)], [{ productId: "full", quantity: 1 }])).toEqual({
      putBack: [],
      leftOut: [{ productId: "full", quantity: 1, reason: "line_full" }],
      givingWay: [],
    });
  });

  test("a full cart (50 lines) takes no new line, but a product it holds still gains; the last free place goes to the first product", () => {
    const full = Array.from({ length: MAX_CART_LINES }, (_, i) => line(`p${i}`, 1));
    expect(
      linesToPutBack(full, [
        { productId: "new", quantity: 2 },
        { productId: "p0", quantity: 2 },
      ]),
    ).toEqual({
      putBack: [{ productId: "p0", quantity: 2 }],
      leftOut: [{ productId: "new", quantity: 2, reason: "cart_full" }],
      givingWay: [],
    });
    expect(
      linesToPutBack(full.slice(1), [
        { productId: "first", quantity: 1 },
        { productId: "second", quantity: 1 },
      ]),
    ).toEqual({
      putBack: [{ productId: "first", quantity: 1 }],
      leftOut: [{ productId: "second", quantity: 1, reason: "cart_full" }],
      givingWay: [],
    });
  });

  test("lines off sale take no place: the oldest give way to the order's lines, as for an add; one the order adds to is kept, and holds its place", () => {
    // 47 on sale and 3 off sale, oldest first: 50 kept, the shopper seeing 47.
    const cart = [line("off-a", 1, false), ...Array.from({ length: 47 }, (_, i) => line(`p${i}`, 1)), line("off-b", 2, false), line("off-c", 1, false)];
    expect(
      linesToPutBack(cart, [
        { productId: "new-1", quantity: 1 },
        { productId: "off-c", quantity: 1 },
        { productId: "new-2", quantity: 1 },
        { productId: "new-3", quantity: 1 },
        { productId: "new-4", quantity: 1 },
      ]),
    ).toEqual({
      putBack: [
        { productId: "new-1", quantity: 1 },
        { productId: "off-c", quantity: 1 },
        { productId: "new-2", quantity: 1 },
      ],
      leftOut: [
        { productId: "new-3", quantity: 1, reason: "cart_full" },
        { productId: "new-4", quantity: 1, reason: "cart_full" },
      ],
      givingWay: ["line-off-a", "line-off-b"],
    });
    // A line given way for an earlier product is gone: the order's own goods of it need a place anew.
    expect(
      linesToPutBack(cart, [
        { productId: "new-1", quantity: 1 },
        { productId: "new-2", quantity: 1 },
        { productId: "new-3", quantity: 1 },
        { productId: "off-a", quantity: 5 },
      ]),
    ).toEqual({
      putBack: [
        { productId: "new-1", quantity: 1 },
        { productId: "new-2", quantity: 1 },
        { productId: "new-3", quantity: 1 },
      ],
      leftOut: [{ productId: "off-a", quantity: 5, reason: "cart_full" }],
      givingWay: ["line-off-a", "line-off-b", "line-off-c"],
    });
  });
});
