import { describe, expect, test } from "bun:test";
import { exportSalesReport, getSalesReport } from "../../src/application/admin/sales-report.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { type Actor, DEFAULT_ROLE_PERMISSIONS } from "../../src/domain/permissions.ts";
import type { ReportRange } from "../../src/domain/report.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { domainErrorOf } from "../support/errors.ts";
import { anOrderOf, recordSale } from "../support/sales-history.ts";
import { auditEntries } from "../support/audit.ts";

const actor = (role: "ADMIN" | "STAFF" | "CUSTOMER"): Actor => ({
  userId: `${role.toLowerCase()}-1`,
  role,
  permissions: new Set(DEFAULT_ROLE_PERMISSIONS[role]),
});
const origin = { ipAddress: "203.0.113.7", userAgent: "report-test" };
const march = { from: "2026-03-01", to: "2026-03-31", interval: "week" } satisfies ReportRange;

describe("the sales report's use cases (decisions §12)", () => {
  test("analytics:read reads it, in the shop's zone: a sale at 01:00 UTC on the 2nd is the 1st's in New York", async () => {
    const deps = createMemoryDeps();
    const ada = aUser();
    const sauce = aProduct({ price: 1000 });
    await deps.repos.users.create(ada);
    await deps.repos.products.create(sauce);
    await recordSale(deps.repos, anOrderOf(ada.id, [[sauce, 1]], 0, new Date("2026-03-02T01:00:00Z")), new Date("2026-03-02T01:00:00Z"));
    const byDay = { from: "2026-03-01", to: "2026-03-02", interval: "day" } as const;
    const inNewYork = await getSalesReport(deps, { timeZone: "America/New_York" }, actor("STAFF"), byDay);
    expect(inNewYork.series.map((p) => [p.period, p.orders])).toEqual([
      ["2026-03-01", 1],
      ["2026-03-02", 0],
    ]);
    const inUtc = await getSalesReport(deps, { timeZone: "UTC" }, actor("STAFF"), byDay);
    expect(inUtc.series.map((p) => [p.period, p.orders])).toEqual([
      ["2026-03-01", 0],
      ["2026-03-02", 1],
    ]);
    expect(inNewYork).toMatchObject({ timeZone: "America/New_York", range: byDay, totals: { orders: 1, grossSales: 1000 } });
  });

  test("without analytics:read it is refused", async () => {
    const deps = createMemoryDeps();
    expect(await domainErrorOf(getSalesReport(deps, { timeZone: "UTC" }, actor("CUSTOMER"), march))).toMatchObject({
      code: "forbidden",
      details: { required: "analytics:read" },
    });
  });

  test("an export needs analytics:export (STAFF has not), and is audited once, before it is read: who, from where, the range and the zone", async () => {
    const deps = createMemoryDeps();
    expect(await domainErrorOf(exportSalesReport(deps, { timeZone: "UTC" }, actor("STAFF"), march, origin))).toMatchObject({
      code: "forbidden",
      details: { required: "analytics:export" },
    });
    const { startedAt, report } = await exportSalesReport(deps, { timeZone: "Europe/Paris" }, actor("ADMIN"), march, origin);
    expect(startedAt).toEqual(deps.clock.now());
    expect(report.series.map((p) => p.period)).toEqual(["2026-02-23", "2026-03-02", "2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30"]);
    expect(await auditEntries(deps.repos.audit, { action: "report.export" })).toEqual([
      {
        id: expect.any(String),
        userId: "admin-1",
        action: "report.export",
        entityType: "report",
        entityId: "sales",
        changes: { filters: march, timeZone: "Europe/Paris" },
        ipAddress: "203.0.113.7",
        userAgent: "report-test",
        createdAt: deps.clock.now(),
      },
    ]);
  });

  test("a range refused is no export: 400's invalid input, and nothing audited", async () => {
    const deps = createMemoryDeps();
    const tooLong = { from: "2025-01-01", to: "2026-01-03", interval: "month" } as const;
    expect(await domainErrorOf(exportSalesReport(deps, { timeZone: "UTC" }, actor("ADMIN"), tooLong, origin))).toMatchObject({
      code: "invalid_input",
      details: { issues: [{ path: "to", message: "must be at most 366 days after from" }] },
    });
    expect(await auditEntries(deps.repos.audit, { action: "report.export" })).toEqual([]);
  });
});
