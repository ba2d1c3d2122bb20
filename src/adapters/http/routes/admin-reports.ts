import { Elysia } from "elysia";
import { z } from "zod";
import { REPORT_INTERVALS } from "../../../domain/report.ts";
import type { Clock } from "../../../application/ports/system.ts";
import type { UseCases } from "../../../application/use-cases.ts";
import { type AuthSettings, authPlugin } from "../auth.ts";
import { csvHead, csvResponse } from "../csv.ts";
import { envelopeMacro } from "../plumbing/envelope.ts";
import { csvDocument, csvFileName } from "../../presenters/csv.ts";
import { SALES_CSV_HEADER, presentSalesReport, salesCsvRow, salesReportSchema } from "../../presenters/sales-report.ts";
import { envelope, envelopeError } from "../schemas.ts";

const rangeQuery = z.object({
  from: z.iso.date().describe("the first date, in the shop's zone (SHOP_TIMEZONE)"),
  to: z.iso.date().describe("the last date, included; at most 366 days after from"),
  interval: z.enum(REPORT_INTERVALS).default("day"),
});

const errors = { 400: envelopeError, 401: envelopeError, 403: envelopeError };
const csvAnswer = z.string().describe("The series as CSV, a download named sales-YYYYMMDD.csv: a header row, then a row a period, money in dollars");

/** The sales report (decisions §12), in the shop's time zone. */
export function adminReportRoutes(useCases: UseCases, settings: AuthSettings, shopTimeZone: string, clock: Clock) {
  return new Elysia({ name: "routes.admin-reports", prefix: "/admin/reports", detail: { tags: ["Back office"] } })
    .use(envelopeMacro)
    .use(authPlugin(useCases, settings))
    .get(
      "/sales",
      async ({ query, principal }) => ({
        success: true as const,
        data: presentSalesReport(await useCases.getSalesReport(principal.actor, query)),
        error: null,
      }),
      {
        envelope: true,
        auth: { permission: "analytics:read" },
        query: rangeQuery,
        response: {
          200: envelope(salesReportSchema).meta({ id: "SalesReportAnswer" }).describe("The report: its periods, their totals, and the top products"),
          ...errors,
        },
        detail: {
          summary: "Sales by day, week or month in the shop's zone (analytics:read)",
          description:
            "An order counts when its payment succeeded, a refund when it was made (a refund may fall in a later period than its sale). Money in dollars. See docs/back-office.md, Sales report.",
        },
      },
    )
    .get(
      "/sales/export",
      async ({ query, principal, origin, request }) => {
        if (request.method === "HEAD") return csvHead(csvFileName("sales", clock.now(), shopTimeZone));
        const { startedAt, report } = await useCases.exportSalesReport(principal.actor, query, origin);
        const series = (async function* () {
          yield report.series;
        })();
        return csvResponse(request, csvFileName("sales", startedAt, shopTimeZone), csvDocument(SALES_CSV_HEADER, series, salesCsvRow));
      },
      {
        envelope: true,
        auth: { permission: "analytics:export" },
        query: rangeQuery,
        response: { 200: csvAnswer, ...errors },
        detail: {
          summary: "The sales report's series as CSV (analytics:export; audited as report.export)",
          "x-csv": true,
        },
      },
    );
}
