import { z } from "zod";
import { toDollars } from "../../domain/money.ts";
import { REPORT_INTERVALS, type SalesFigures, type SalesReport } from "../../domain/report.ts";
import type { CsvCell } from "./csv.ts";
import { money } from "./shapes.ts";

/** The sales report as the API shows it, and as `report:sales --json` prints it: money in dollars (docs/back-office.md, "Sales report"). */

const figures = {
  orders: z.int().describe("orders whose payment succeeded in the period"),
  units: z.int().describe("the units those orders hold"),
  grossSales: money.describe("those orders' merchandise (their subtotals, before discounts, shipping and tax)"),
  refunds: money.describe("the merchandise of the orders refunded in the period (less its discounts), whenever they were paid"),
  netSales: money.describe("grossSales less discounts less refunds"),
  shipping: money.describe("shipping charged on the period's orders, less shipping refunded in it"),
  tax: money.describe("tax charged on the period's orders, less tax refunded in it"),
  averageOrderValue: money.describe("grossSales less discounts, per order (0 without orders)"),
};

export const salesPeriodSchema = z
  .object({ period: z.iso.date().describe("the period's first date in the shop's zone: the day, the Monday of the week, the 1st of the month"), ...figures })
  .meta({ id: "SalesPeriod" });
export const salesTotalsSchema = z.object(figures).meta({ id: "SalesTotals" });
export const topProductSchema = z
  .object({ productId: z.string(), name: z.string(), sku: z.string(), units: z.int(), revenue: money.describe("its lines, before shipping and tax") })
  .meta({ id: "TopProduct" });

export const salesReportSchema = z
  .object({
    timeZone: z.string().describe("SHOP_TIMEZONE: the zone the dates and periods are in"),
    from: z.iso.date(),
    to: z.iso.date(),
    interval: z.enum(REPORT_INTERVALS),
    series: z.array(salesPeriodSchema).describe("every period of the range, oldest first, empty ones included"),
    totals: salesTotalsSchema.describe("the series added up; averageOrderValue over the whole range"),
    topProducts: z.array(topProductSchema).describe("the 10 products sold most in the range, by units (then revenue)"),
  })
  .meta({ id: "SalesReport" });

const inDollars = (f: SalesFigures): z.infer<typeof salesTotalsSchema> => ({
  orders: f.orders,
  units: f.units,
  grossSales: toDollars(f.grossSales),
  refunds: toDollars(f.refunds),
  netSales: toDollars(f.netSales),
  shipping: toDollars(f.shipping),
  tax: toDollars(f.tax),
  averageOrderValue: toDollars(f.averageOrderValue),
});

export function presentSalesReport(report: SalesReport): z.infer<typeof salesReportSchema> {
  return {
    timeZone: report.timeZone,
    ...report.range,
    series: report.series.map((p) => ({ period: p.period, ...inDollars(p) })),
    totals: inDollars(report.totals),
    topProducts: report.topProducts.map((p) => ({ ...p, revenue: toDollars(p.revenue) })),
  };
}

/** The series as CSV (decisions §12): one row a period, money in dollars with two decimals. */
export const SALES_CSV_HEADER = ["period", "orders", "units", "grossSales", "refunds", "netSales", "shipping", "tax", "averageOrderValue"] as const;

export function salesCsvRow(p: SalesReport["series"][number]): CsvCell[] {
  return [
    p.period,
    p.orders,
    p.units,
    { cents: p.grossSales },
    { cents: p.refunds },
    { cents: p.netSales },
    { cents: p.shipping },
    { cents: p.tax },
    { cents: p.averageOrderValue },
  ];
}
