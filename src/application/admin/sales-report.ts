import type { RequestOrigin } from "../../domain/audit.ts";
import type { Actor } from "../../domain/permissions.ts";
import { type ReportRange, type SalesReport, boundsOf, reportPeriods, salesReportOf, settledBefore } from "../../domain/report.ts";
import { recordAudit } from "../audit.ts";
import { requirePermission } from "../permissions/require.ts";
import type { Deps } from "../ports/index.ts";

/** Decisions §12: the ten best-selling products. */
const TOP_PRODUCTS = 10;

type ReportDeps = Pick<Deps, "uow" | "clock">;

/** The shop's zone (SHOP_TIMEZONE), in which a report's dates, weeks and months are reckoned. */
export interface ReportSettings {
  timeZone: string;
}

async function reportOver(deps: ReportDeps, { timeZone }: ReportSettings, range: ReportRange): Promise<SalesReport> {
  const periods = reportPeriods(range, timeZone);
  const settled = settledBefore(deps.clock.now());
  const facts = await deps.uow.read((db) => db.sales.salesIn(boundsOf(periods), TOP_PRODUCTS, settled));
  return salesReportOf(range, timeZone, periods, facts);
}

/** The sales report (decisions §12, analytics:read): GET /api/admin/reports/sales and `report:sales`. */
export async function getSalesReport(deps: ReportDeps, settings: ReportSettings, actor: Actor, range: ReportRange): Promise<SalesReport> {
  requirePermission(actor, "analytics:read");
  return reportOver(deps, settings, range);
}

export interface SalesExport {
  /** When it began: its audit entry's time, and the date in its file name. */
  startedAt: Date;
  report: SalesReport;
}

/**
 * The same report to download (analytics:export), audited before it is read: `report.export`, by
 * whom, with its range and zone. A range refused (not a range, too long) is no export, and not audited.
 */
export async function exportSalesReport(
  deps: Pick<Deps, "uow" | "ids" | "clock">,
  settings: ReportSettings,
  actor: Actor,
  range: ReportRange,
  origin: RequestOrigin,
): Promise<SalesExport> {
  requirePermission(actor, "analytics:export");
  reportPeriods(range, settings.timeZone);
  const startedAt = deps.clock.now();
  await deps.uow.transaction((tx) =>
    recordAudit(tx, deps, {
      userId: actor.userId,
      action: "report.export",
      entityType: "report",
      entityId: "sales",
      changes: { filters: { from: range.from, to: range.to, interval: range.interval }, timeZone: settings.timeZone },
      origin,
    }),
  );
  return { startedAt, report: await reportOver(deps, settings, range) };
}
