import { toDollars } from "../domain/money.ts";
import type { SalesFigures, SalesReport } from "../domain/report.ts";

const dollars = (cents: number) => `${cents < 0 ? "-" : ""}$${toDollars(Math.abs(cents)).toFixed(2)}`;
const COLUMNS = ["orders", "units", "gross", "refunds", "net", "shipping", "tax", "avg order"];

function row(label: string, f: SalesFigures): string {
  const money = [f.grossSales, f.refunds, f.netSales, f.shipping, f.tax, f.averageOrderValue].map((cents) => dollars(cents).padStart(12));
  return [label.padEnd(10), String(f.orders).padStart(7), String(f.units).padStart(7), ...money].join(" ");
}

/** The sales report as `report:sales` prints it: a line a period, the totals, the best sellers. */
export function salesTable(report: SalesReport): string[] {
  const { from, to, interval } = report.range;
  return [
    `Sales by ${interval}, ${from} to ${to} (${report.timeZone})`,
    ["period".padEnd(10), ...COLUMNS.map((c, i) => c.padStart(i < 2 ? 7 : 12))].join(" "),
    ...report.series.map((p) => row(p.period, p)),
    row("total", report.totals),
    ...(report.topProducts.length ? ["Top products:"] : []),
    ...report.topProducts.map((p) => `  ${String(p.units).padStart(7)} × ${p.name} (${p.sku}) ${dollars(p.revenue)}`),
  ];
}
