import { DomainError } from "./errors.ts";
import type { Cents } from "./money.ts";
import { type DayNumber, firstOfMonth, firstOfNextMonth, formatDay, mondayOf, parseDay, startOfDay } from "./time-zone.ts";

export const REPORT_INTERVALS = ["day", "week", "month"] as const;
export type ReportInterval = (typeof REPORT_INTERVALS)[number];
export const isReportInterval = (value: string): value is ReportInterval => (REPORT_INTERVALS as readonly string[]).includes(value);

/** Decisions §12: from and to at most 366 days apart. */
export const MAX_REPORT_SPAN_DAYS = 366;

/** What a sales report covers: dates in the shop's zone, both included. */
export interface ReportRange {
  from: string;
  to: string;
  interval: ReportInterval;
}

/**
 * One period of a report: the calendar day, week (Monday to Sunday) or month it belongs to, named
 * by that period's first date, and the instants it covers, [start, end). The first and last
 * periods cover only the dates within the range.
 */
export interface ReportPeriod {
  period: string;
  start: Date;
  end: Date;
}

const invalid = (path: string, message: string) => new DomainError("invalid_input", "Invalid request", { issues: [{ path, message }] });

function dayOf(range: ReportRange, field: "from" | "to"): DayNumber {
  const day = parseDay(range[field]);
  if (day === null) throw invalid(field, "must be a date (YYYY-MM-DD)");
  // As the other filters' dates: a week of year 0 began in year -1, which no period can be named (found by an attack).
  if (range[field].startsWith("0000")) throw invalid(field, "must be within the years 1 to 9999");
  return day;
}

/** Where the calendar period after the one holding `day` begins. */
const NEXT_START: Record<ReportInterval, (day: DayNumber) => DayNumber> = {
  day: (day) => day + 1,
  week: (day) => mondayOf(day) + 7,
  month: firstOfNextMonth,
};
const NAME: Record<ReportInterval, (day: DayNumber) => DayNumber> = { day: (day) => day, week: mondayOf, month: firstOfMonth };

/**
 * The periods of a report in the zone, across daylight saving changes: a day is 23 or 25 hours
 * where the clocks change, each period running from the first instant of its first date to the
 * first instant of the date after its last. Refuses a range that is no range, or too long.
 */
export function reportPeriods(range: ReportRange, zone: string): ReportPeriod[] {
  const from = dayOf(range, "from");
  const to = dayOf(range, "to");
  if (to < from) throw invalid("to", "must not be before from");
  if (to - from > MAX_REPORT_SPAN_DAYS) throw invalid("to", `must be at most ${MAX_REPORT_SPAN_DAYS} days after from`);
  const periods: ReportPeriod[] = [];
  // A period ends where the next begins: each bound is found once (a year of days is 366 look-ups in the zone's rules, not 730).
  let start = startOfDay(zone, from);
  for (let first = from; first <= to; ) {
    const next = Math.min(NEXT_START[range.interval](first), to + 1);
    const end = startOfDay(zone, next);
    periods.push({ period: formatDay(NAME[range.interval](first)), start, end });
    [first, start] = [next, end];
  }
  return periods;
}

/** The period boundaries as one ascending list: period i is [bounds[i], bounds[i + 1]). */
export const boundsOf = (periods: readonly ReportPeriod[]): Date[] => [...periods.map((p) => p.start), periods.at(-1)!.end];

/**
 * How long after a period ends its figures may still change: an order is paid, or refunded, at the
 * moment the shop learns of it, by the clock of the instance that learns it, and committed within
 * a transaction's time. An hour covers any transaction and any sane gap between two clocks.
 */
export const SETTLING_MS = 60 * 60 * 1000;

/**
 * The instant before which every period has settled: a period that ended before it has its final
 * figures, which no sale or refund will change, so they may be kept and read again.
 */
export const settledBefore = (now: Date): Date => new Date(now.getTime() - SETTLING_MS);

/** What the orders paid within one period add up to (its index in the report's periods). */
export interface PeriodSales {
  period: number;
  orders: number;
  units: number;
  subtotal: Cents;
  discount: Cents;
  shipping: Cents;
  tax: Cents;
}

/** What the refunds made within one period add up to: each gives back a whole order, paid in the same or an earlier period. */
export interface PeriodRefunds {
  period: number;
  subtotal: Cents;
  discount: Cents;
  shipping: Cents;
  tax: Cents;
}

export interface ProductSales {
  productId: string;
  name: string;
  sku: string;
  units: number;
  /** The product's lines, before shipping and tax. */
  revenue: Cents;
}

/** The sums a report is made of, as the database groups them by the report's periods. */
export interface SalesFacts {
  sold: PeriodSales[];
  refunded: PeriodRefunds[];
  topProducts: ProductSales[];
}

/**
 * A period's figures, in cents (docs/back-office.md, "Sales report"): grossSales the merchandise
 * of the orders paid (their subtotals); refunds the merchandise given back (less its discount);
 * netSales gross less discounts less refunds; shipping and tax what was charged less what was given
 * back, so netSales + shipping + tax is what the period brought in. averageOrderValue: the paid
 * orders' merchandise after discounts, per order, rounded to the cent.
 */
export interface SalesFigures {
  orders: number;
  units: number;
  grossSales: Cents;
  refunds: Cents;
  netSales: Cents;
  shipping: Cents;
  tax: Cents;
  averageOrderValue: Cents;
}

export interface SalesReport {
  timeZone: string;
  range: ReportRange;
  series: Array<{ period: string } & SalesFigures>;
  totals: SalesFigures;
  topProducts: ProductSales[];
}

type Sums = Omit<PeriodSales, "period"> & { refunded: Omit<PeriodRefunds, "period"> };
const NOTHING: Sums = { orders: 0, units: 0, subtotal: 0, discount: 0, shipping: 0, tax: 0, refunded: { subtotal: 0, discount: 0, shipping: 0, tax: 0 } };

function add(a: Sums, b: Sums): Sums {
  const r = b.refunded;
  return {
    orders: a.orders + b.orders,
    units: a.units + b.units,
    subtotal: a.subtotal + b.subtotal,
    discount: a.discount + b.discount,
    shipping: a.shipping + b.shipping,
    tax: a.tax + b.tax,
    refunded: {
      subtotal: a.refunded.subtotal + r.subtotal,
      discount: a.refunded.discount + r.discount,
      shipping: a.refunded.shipping + r.shipping,
      tax: a.refunded.tax + r.tax,
    },
  };
}

function figures(s: Sums): SalesFigures {
  const refunds = s.refunded.subtotal - s.refunded.discount;
  const merchandise = s.subtotal - s.discount;
  return {
    orders: s.orders,
    units: s.units,
    grossSales: s.subtotal,
    refunds,
    netSales: merchandise - refunds,
    shipping: s.shipping - s.refunded.shipping,
    tax: s.tax - s.refunded.tax,
    averageOrderValue: s.orders === 0 ? 0 : Math.round(merchandise / s.orders),
  };
}

/**
 * The report from the database's sums: every period in the series (an empty one with zeros), the
 * totals of the same sums (so the series adds up to them, the average excepted: it is the range's
 * own), and the best-selling products as given.
 */
export function salesReportOf(range: ReportRange, timeZone: string, periods: readonly ReportPeriod[], facts: SalesFacts): SalesReport {
  const sums: Sums[] = periods.map(() => NOTHING);
  for (const { period, ...sold } of facts.sold) sums[period] = add(sums[period]!, { ...sold, refunded: NOTHING.refunded });
  for (const { period, ...refunded } of facts.refunded) sums[period] = add(sums[period]!, { ...NOTHING, refunded });
  return {
    timeZone,
    range,
    series: periods.map((p, i) => ({ period: p.period, ...figures(sums[i]!) })),
    totals: figures(sums.reduce(add, NOTHING)),
    topProducts: facts.topProducts,
  };
}
