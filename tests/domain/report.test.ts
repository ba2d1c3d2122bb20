import { describe, expect, test } from "bun:test";
import { DomainError } from "../../src/domain/errors.ts";
import { type ReportRange, boundsOf, reportPeriods, salesReportOf } from "../../src/domain/report.ts";

const NY = "America/New_York";
const periodsOf = (range: ReportRange, zone = NY) =>
  reportPeriods(range, zone).map((p) => ({ period: p.period, start: p.start.toISOString(), end: p.end.toISOString() }));

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, issues: error.details?.issues };
    throw error;
  }
  throw new Error("not refused");
}

describe("report periods in the shop's zone (decisions §12)", () => {
  test("days across the spring change: the Sunday it happens on is 23 hours long", () => {
    expect(periodsOf({ from: "2026-03-07", to: "2026-03-09", interval: "day" })).toEqual([
      { period: "2026-03-07", start: "2026-03-07T05:00:00.000Z", end: "2026-03-08T05:00:00.000Z" },
      { period: "2026-03-08", start: "2026-03-08T05:00:00.000Z", end: "2026-03-09T04:00:00.000Z" },
      { period: "2026-03-09", start: "2026-03-09T04:00:00.000Z", end: "2026-03-10T04:00:00.000Z" },
    ]);
  });

  test("and across the autumn change, 25 hours", () => {
    expect(periodsOf({ from: "2026-11-01", to: "2026-11-01", interval: "day" })).toEqual([
      { period: "2026-11-01", start: "2026-11-01T04:00:00.000Z", end: "2026-11-02T05:00:00.000Z" },
    ]);
  });

  test("weeks run Monday to Sunday and are named by their Monday; the first and last cover only the range's dates", () => {
    expect(periodsOf({ from: "2026-03-04", to: "2026-03-20", interval: "week" })).toEqual([
      { period: "2026-03-02", start: "2026-03-04T05:00:00.000Z", end: "2026-03-09T04:00:00.000Z" },
      { period: "2026-03-09", start: "2026-03-09T04:00:00.000Z", end: "2026-03-16T04:00:00.000Z" },
      { period: "2026-03-16", start: "2026-03-16T04:00:00.000Z", end: "2026-03-21T04:00:00.000Z" },
    ]);
  });

  test("months are named by their first day, a leap February included", () => {
    expect(periodsOf({ from: "2028-01-15", to: "2028-03-10", interval: "month" })).toEqual([
      { period: "2028-01-01", start: "2028-01-15T05:00:00.000Z", end: "2028-02-01T05:00:00.000Z" },
      { period: "2028-02-01", start: "2028-02-01T05:00:00.000Z", end: "2028-03-01T05:00:00.000Z" },
      { period: "2028-03-01", start: "2028-03-01T05:00:00.000Z", end: "2028-03-11T05:00:00.000Z" },
    ]);
  });

  test("a one-day range in UTC; a full year of days; bounds list every start and the last end", () => {
    const one = reportPeriods({ from: "2026-03-08", to: "2026-03-08", interval: "month" }, "UTC");
    expect(boundsOf(one).map((b) => b.toISOString())).toEqual(["2026-03-08T00:00:00.000Z", "2026-03-09T00:00:00.000Z"]);
    const year = reportPeriods({ from: "2026-01-01", to: "2027-01-02", interval: "day" }, NY);
    expect(year.length).toBe(367);
    expect(year.every((p, i) => i === 0 || p.start.getTime() === year[i - 1]!.end.getTime())).toBe(true);
  });

  test("from and to at most 366 days apart, to not before from, real dates: else 400's invalid input naming the field", () => {
    const issue = (path: string, message: string) => ({ code: "invalid_input", issues: [{ path, message }] });
    expect(refusal(() => reportPeriods({ from: "2026-01-01", to: "2027-01-03", interval: "day" }, NY))).toEqual(
      issue("to", "must be at most 366 days after from"),
    );
    expect(refusal(() => reportPeriods({ from: "2026-03-02", to: "2026-03-01", interval: "day" }, NY))).toEqual(issue("to", "must not be before from"));
    expect(refusal(() => reportPeriods({ from: "2026-02-30", to: "2026-03-01", interval: "day" }, NY))).toEqual(issue("from", "must be a date (YYYY-MM-DD)"));
    expect(refusal(() => reportPeriods({ from: "2026-03-01", to: "March 2", interval: "day" }, NY))).toEqual(issue("to", "must be a date (YYYY-MM-DD)"));
    // A week of year 0 began in year -1, which no period could be named (found by an attack).
    expect(refusal(() => reportPeriods({ from: "0000-01-01", to: "0000-01-03", interval: "week" }, NY))).toEqual(
      issue("from", "must be within the years 1 to 9999"),
    );
    expect(reportPeriods({ from: "0001-01-01", to: "0001-01-03", interval: "week" }, "UTC").map((p) => p.period)).toEqual(["0001-01-01"]);
  });
});

describe("sales figures from the database's sums", () => {
  const range: ReportRange = { from: "2026-03-07", to: "2026-03-09", interval: "day" };
  const periods = reportPeriods(range, NY);
  const product = { productId: "p1", name: "Ghost Pepper", sku: "GP-1", units: 4, revenue: 5196 };

  // Worked out by hand: two orders paid on the 7th ($50.00 free shipping, and $25.98 + $6.99 + $2.14),
  // the second refunded on the 8th; one paid on the 9th ($12.99 less a $1.00 discount + $6.99 + $1.07).
  const report = salesReportOf(range, NY, periods, {
    sold: [
      { period: 0, orders: 2, units: 5, subtotal: 7598, discount: 0, shipping: 699, tax: 627 },
      { period: 2, orders: 1, units: 1, subtotal: 1299, discount: 100, shipping: 699, tax: 107 },
    ],
    refunded: [{ period: 1, subtotal: 2598, discount: 0, shipping: 699, tax: 214 }],
    topProducts: [product],
  });

  test("each period: gross is the paid orders' merchandise, a refund counts in the period it was made, net of both and of discounts", () => {
    expect(report.series).toEqual([
      { period: "2026-03-07", orders: 2, units: 5, grossSales: 7598, refunds: 0, netSales: 7598, shipping: 699, tax: 627, averageOrderValue: 3799 },
      { period: "2026-03-08", orders: 0, units: 0, grossSales: 0, refunds: 2598, netSales: -2598, shipping: -699, tax: -214, averageOrderValue: 0 },
      { period: "2026-03-09", orders: 1, units: 1, grossSales: 1299, refunds: 0, netSales: 1199, shipping: 699, tax: 107, averageOrderValue: 1199 },
    ]);
  });

  test("totals are the series added up; their average is the range's own, per order, rounded to the cent", () => {
    // (7598 + 1299 - 100) / 3 = 2932.33
    expect(report.totals).toEqual({ orders: 3, units: 6, grossSales: 8897, refunds: 2598, netSales: 6199, shipping: 699, tax: 520, averageOrderValue: 2932 });
    for (const field of ["orders", "units", "grossSales", "refunds", "netSales", "shipping", "tax"] as const) {
      expect(report.series.reduce((sum, p) => sum + p[field], 0)).toBe(report.totals[field]);
    }
    expect(report.topProducts).toEqual([product]);
    expect({ timeZone: report.timeZone, range: report.range }).toEqual({ timeZone: NY, range });
  });

  test("a half cent of average rounds up; a range with no sales is all zeros", () => {
    const one = reportPeriods({ from: "2026-03-07", to: "2026-03-07", interval: "day" }, NY);
    const halves = salesReportOf(range, NY, one, {
      sold: [{ period: 0, orders: 2, units: 2, subtotal: 2599, discount: 0, shipping: 0, tax: 0 }],
      refunded: [],
      topProducts: [],
    });
    expect(halves.totals.averageOrderValue).toBe(1300);
    const empty = salesReportOf(range, NY, periods, { sold: [], refunded: [], topProducts: [] });
    expect(empty.totals).toEqual({ orders: 0, units: 0, grossSales: 0, refunds: 0, netSales: 0, shipping: 0, tax: 0, averageOrderValue: 0 });
    expect(empty.series.map((p) => p.period)).toEqual(["2026-03-07", "2026-03-08", "2026-03-09"]);
  });
});
