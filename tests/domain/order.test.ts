import { describe, expect, test } from "bun:test";
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PAYMENT_STATUSES,
  PAYMENT_MOVES,
  type OrderStatus,
  type PaymentFact,
  type PaymentStatus,
  isFinalStatus,
  paymentAfter,
  payability,
  refuseUnlessCancellable,
  restocksOn,
  transition,
  reaches,
  newOrder,
  movesOf,
} from "../../src/domain/order.ts";
import { DomainError } from "../../src/domain/errors.ts";

// Decisions §4, as the table the domain must hold (written out here, not read from the code under test).
const EXPECTED_ORDER_MOVES: Record<OrderStatus, OrderStatus[]> = {
  PENDING: ["CONFIRMED", "CANCELLED"],
  CONFIRMED: ["PROCESSING", "CANCELLED", "REFUNDED"],
  PROCESSING: ["SHIPPED", "CANCELLED", "REFUNDED"],
  SHIPPED: ["DELIVERED", "REFUNDED"],
  DELIVERED: ["REFUNDED"],
  CANCELLED: [],
  REFUNDED: [],
};

// What each fact does to a payment; a fact missing from a row changes nothing.
const EXPECTED_PAYMENT_MOVES: Record<PaymentStatus, Partial<Record<PaymentFact, PaymentStatus>>> = {
  PENDING: { paid: "PAID", failed: "FAILED", refunded: "REFUNDED" },
  FAILED: { paid: "PAID", refunded: "REFUNDED" },
  PAID: { refunded: "REFUNDED" },
  REFUNDED: {},
};

describe("order status moves (decisions §4)", () => {
  test("the table is exactly the decided one", () => {
    expect(ORDER_TRANSITIONS).toEqual(EXPECTED_ORDER_MOVES);
  });

  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      const allowed = EXPECTED_ORDER_MOVES[from].includes(to);
      test(`${from} → ${to}: ${allowed ? "allowed" : "refused, naming the allowed moves"}`, () => {
        if (allowed) {
          expect(transition(from, to)).toBe(to);
          return;
        }
        let error: unknown;
        try {
          transition(from, to);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DomainError);
        const allowedText = EXPECTED_ORDER_MOVES[from].length ? EXPECTED_ORDER_MOVES[from].join(", ") : "none: it is final";
        expect(error).toMatchObject({
          code: "order.invalid_transition",
          message: `An order cannot move from ${from} to ${to}; allowed: ${allowedText}`,
          details: { from, to, allowed: EXPECTED_ORDER_MOVES[from] },
        });
      });
    }
  }
});

describe("movesOf: the moves a client offers, with what each asks", () => {
  test("every move of the table from the order's status, in its order; SHIPPED asks a tracking number", () => {
    for (const from of ORDER_STATUSES) {
      const moves = movesOf({ status: from, paymentStatus: "PENDING" });
      expect(moves.map((m) => m.status)).toEqual(EXPECTED_ORDER_MOVES[from]);
      for (const move of moves) expect(move.needsTrackingNumber).toBe(move.status === "SHIPPED");
    }
  });

  test("ending a paid order refunds it and needs financials:refunds; ending an unpaid one, or moving on, needs orders:write only", () => {
    const paid = movesOf({ status: "PROCESSING", paymentStatus: "PAID" }).map((m) => [m.status, m.refunds, m.permissions]);
    expect(paid).toEqual([
      ["SHIPPED", false, ["orders:write"]],
      ["CANCELLED", true, ["orders:write", "financials:refunds"]],
      ["REFUNDED", true, ["orders:write", "financials:refunds"]],
    ]);
    const unpaid = movesOf({ status: "PENDING", paymentStatus: "FAILED" }).map((m) => [m.status, m.refunds, m.permissions]);
    expect(unpaid).toEqual([
      ["CONFIRMED", false, ["orders:write"]],
      ["CANCELLED", false, ["orders:write"]],
    ]);
    expect(movesOf({ status: "REFUNDED", paymentStatus: "REFUNDED" })).toEqual([]);
  });
});

describe("payment status moves", () => {
  test("the table is exactly the decided one", () => {
    expect(PAYMENT_MOVES).toEqual(EXPECTED_PAYMENT_MOVES);
  });

  test("a fact moves a payment as the table says, or changes nothing: nothing leads back from PAID, REFUNDED is final, a second decline is no move", () => {
    for (const status of PAYMENT_STATUSES) {
      for (const fact of ["paid", "failed", "refunded"] as const) expect(paymentAfter(status, fact)).toBe(EXPECTED_PAYMENT_MOVES[status][fact] ?? null);
    }
    expect([paymentAfter("PAID", "failed"), paymentAfter("PAID", "paid"), paymentAfter("FAILED", "failed")]).toEqual([null, null, null]);
    expect(paymentAfter("PENDING", "refunded")).toBe("REFUNDED");
  });

  test("an order's paths: PENDING reaches REFUNDED over CONFIRMED, a final status reaches nothing, nothing leads back", () => {
    expect(reaches(ORDER_TRANSITIONS, "PENDING", "REFUNDED")).toBe(true);
    expect(reaches(ORDER_TRANSITIONS, "PENDING", "DELIVERED")).toBe(true);
    expect(reaches(ORDER_TRANSITIONS, "SHIPPED", "CANCELLED")).toBe(false);
    expect(reaches(ORDER_TRANSITIONS, "DELIVERED", "PENDING")).toBe(false);
    for (const to of ORDER_STATUSES) expect(reaches(ORDER_TRANSITIONS, "CANCELLED", to) || reaches(ORDER_TRANSITIONS, "REFUNDED", to)).toBe(false);
  });
});

describe("final statuses: those with no move out of them in the table", () => {
  test("CANCELLED and REFUNDED, and no other (decisions §4)", () => {
    expect(ORDER_STATUSES.filter(isFinalStatus)).toEqual(["CANCELLED", "REFUNDED"]);
  });

  for (const status of ORDER_STATUSES) {
    const final = EXPECTED_ORDER_MOVES[status].length === 0;
    test(`${status} is ${final ? "final: every move out of it is refused" : "not final: an order there can still end"}`, () => {
      expect(isFinalStatus(status)).toBe(final);
      for (const to of ORDER_STATUSES) {
        if (final) expect(() => transition(status, to)).toThrow(DomainError);
      }
      if (!final) expect(ORDER_STATUSES.some((to) => isFinalStatus(to) && reaches(ORDER_TRANSITIONS, status, to))).toBe(true);
    });
  }
});

// Decisions §4, every cell written out: null when the order can be paid, else the refusal, already paid checked first.
const PAYABILITY: Record<OrderStatus, Record<PaymentStatus, "order.already_paid" | "order.not_payable" | null>> = {
  PENDING: { PENDING: null, PAID: "order.already_paid", FAILED: null, REFUNDED: "order.not_payable" },
  CONFIRMED: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
  PROCESSING: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
  SHIPPED: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
  DELIVERED: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
  CANCELLED: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
  REFUNDED: { PENDING: "order.not_payable", PAID: "order.already_paid", FAILED: "order.not_payable", REFUNDED: "order.not_payable" },
};

describe("payability (decisions §4: PENDING, and payment PENDING or FAILED)", () => {
  for (const status of ORDER_STATUSES) {
    for (const paymentStatus of PAYMENT_STATUSES) {
      const expected = PAYABILITY[status][paymentStatus];
      test(`${status}/${paymentStatus} → ${expected ?? "payable"}`, () => {
        expect(payability({ status, paymentStatus })).toBe(expected);
      });
    }
  }
});

describe("a customer may cancel only an unpaid order (decisions §15)", () => {
  const refusal = (status: OrderStatus, paymentStatus: PaymentStatus) => {
    try {
      refuseUnlessCancellable({ status, paymentStatus });
      return null;
    } catch (error) {
      return (error as DomainError).message;
    }
  };
  test("PENDING with its payment PENDING or FAILED; a paid one is 'already paid'; anything else cannot be cancelled, every pair walked", () => {
    for (const status of ORDER_STATUSES) {
      for (const paymentStatus of PAYMENT_STATUSES) {
        const expected =
          paymentStatus === "PAID"
            ? "Order has already been paid"
            : status === "PENDING" && paymentStatus !== "REFUNDED"
              ? null
              : "Order cannot be cancelled in its current status";
        expect({ status, paymentStatus, refusal: refusal(status, paymentStatus) }).toEqual({ status, paymentStatus, refusal: expected });
      }
    }
  });
});

describe("stock comes back when an order is cancelled or refunded before it shipped", () => {
  test.each([
    ["PENDING", "CANCELLED", true],
    ["CONFIRMED", "CANCELLED", true],
    ["PROCESSING", "REFUNDED", true],
    ["SHIPPED", "REFUNDED", false],
    ["DELIVERED", "REFUNDED", false],
    ["PROCESSING", "SHIPPED", false],
  ] as const)("%s → %s restocks: %p", (from, to, restocks) => {
    expect(restocksOn(from, to)).toBe(restocks);
  });
});

describe("a new order", () => {
  const address = { address1: "1 Main St", address2: "Apt 4", city: "Austin", state: "TX", postalCode: "78701", country: "US" };
  const line = (productId: string, price: number, quantity: number) => ({
    productId,
    quantity,
    product: { name: `Sauce ${productId}`, sku: `SKU-${productId}`, featuredImage: `https://img.example.com/${productId}.jpg`, price },
  });

  test("is PENDING and unpaid, copies each product's name, SKU, image and price, and adds up in cents", () => {
    const order = newOrder({
      id: "o1",
      orderNumber: "SF-20261123-AB12",
      userId: "u1",
      itemIds: ["i1", "i2"],
      lines: [line("p1", 1299, 2), line("p2", 899, 1)],
      shippingAddress: address,
      billingAddress: { ...address, address2: null },
      tax: 217,
      notes: "Leave at the door",
      at: new Date("2026-11-23T12:00:00Z"),
    });
    expect(order).toMatchObject({
      status: "PENDING",
      paymentStatus: "PENDING",
      subtotal: 3497,
      shippingCost: 699,
      tax: 217,
      discountAmount: 0,
      total: 4413,
      shippingMethod: "1 Main St\nApt 4\nAustin, TX 78701\nUS",
      customerNotes: "Leave at the door",
      trackingNumber: null,
      stripePaymentIntentId: null,
    });
    expect(order.items).toEqual([
      {
        id: "i1",
        productId: "p1",
        productName: "Sauce p1",
        productSku: "SKU-p1",
        productImage: "https://img.example.com/p1.jpg",
        quantity: 2,
        unitPrice: 1299,
        totalPrice: 2598,
      },
      {
        id: "i2",
        productId: "p2",
        productName: "Sauce p2",
        productSku: "SKU-p2",
        productImage: "https://img.example.com/p2.jpg",
        quantity: 1,
        unitPrice: 899,
        totalPrice: 899,
      },
    ]);
  });

  test("ships free from $50.00, and at the surcharge to Alaska below it", () => {
    const base = { id: "o", orderNumber: "SF-20261123-AB12", userId: "u", itemIds: ["i"], billingAddress: address, tax: 0, notes: null, at: new Date(0) };
    expect(newOrder({ ...base, lines: [line("p", 5000, 1)], shippingAddress: address }).shippingCost).toBe(0);
    expect(newOrder({ ...base, lines: [line("p", 4999, 1)], shippingAddress: { ...address, state: "AK" } })).toMatchObject({ shippingCost: 1049, total: 6048 });
  });
});
