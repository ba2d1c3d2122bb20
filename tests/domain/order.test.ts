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
  reaches,
  newOrder,
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

  test("what a path of moves reaches: a payment heard refunded before paid got there over PAID; nothing leads back from PAID", () => {
    expect(reaches(PAYMENT_TRANSITIONS, "PENDING", "REFUNDED")).toBe(true);
    expect(reaches(PAYMENT_TRANSITIONS, "FAILED", "REFUNDED")).toBe(true);
    expect(reaches(PAYMENT_TRANSITIONS, "FAILED", "FAILED")).toBe(true);
    for (const back of ["PENDING", "FAILED"] as const) expect(reaches(PAYMENT_TRANSITIONS, "PAID", back)).toBe(false);
    for (const to of PAYMENT_STATUSES) expect(reaches(PAYMENT_TRANSITIONS, "REFUNDED", to)).toBe(false);
    expect(reaches(PAYMENT_TRANSITIONS, "PENDING", "PENDING")).toBe(false);
  });

  test("an order's paths: PENDING reaches REFUNDED over CONFIRMED, a final status reaches nothing, nothing leads back", () => {
    expect(reaches(ORDER_TRANSITIONS, "PENDING", "REFUNDED")).toBe(true);
    expect(reaches(ORDER_TRANSITIONS, "PENDING", "DELIVERED")).toBe(true);
    expect(reaches(ORDER_TRANSITIONS, "SHIPPED", "CANCELLED")).toBe(false);
    expect(reaches(ORDER_TRANSITIONS, "DELIVERED", "PENDING")).toBe(false);
    for (const to of ORDER_STATUSES) expect(reaches(ORDER_TRANSITIONS, "CANCELLED", to) || reaches(ORDER_TRANSITIONS, "REFUNDED", to)).toBe(false);
  });
});
