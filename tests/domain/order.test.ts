import { describe, expect, test } from "bun:test";
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  type OrderStatus,
  type PaymentStatus,
  payability,
  restocksOn,
  transition,
  transitionPayment,
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

const EXPECTED_PAYMENT_MOVES: Record<PaymentStatus, PaymentStatus[]> = {
  PENDING: ["PAID", "FAILED"],
  FAILED: ["PAID", "FAILED"],
  PAID: ["REFUNDED"],
  REFUNDED: [],
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

describe("payment status moves", () => {
  test("the table is exactly the decided one", () => {
    expect(PAYMENT_TRANSITIONS).toEqual(EXPECTED_PAYMENT_MOVES);
  });

  for (const from of PAYMENT_STATUSES) {
    for (const to of PAYMENT_STATUSES) {
      const allowed = EXPECTED_PAYMENT_MOVES[from].includes(to);
      test(`${from} → ${to}: ${allowed ? "allowed" : "refused"}`, () => {
        if (allowed) expect(transitionPayment(from, to)).toBe(to);
        else expect(() => transitionPayment(from, to)).toThrow(expect.objectContaining({ code: "payment.invalid_transition" }));
      });
    }
  }
});

describe("payability (decisions §4: PENDING, and payment PENDING or FAILED)", () => {
  for (const status of ORDER_STATUSES) {
    for (const paymentStatus of PAYMENT_STATUSES) {
      const expected =
        paymentStatus === "PAID" ? "order.already_paid" : status === "PENDING" && (paymentStatus === "PENDING" || paymentStatus === "FAILED") ? null : "order.not_payable";
      test(`${status}/${paymentStatus} → ${expected ?? "payable"}`, () => {
        expect(payability({ status, paymentStatus })).toBe(expected);
      });
    }
  }
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
