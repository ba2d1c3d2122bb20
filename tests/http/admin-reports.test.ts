import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFixedClock, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import type { Deps, Repositories } from "../../src/application/ports/index.ts";
import type { UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";
import { createPgDeps } from "../support/pg-deps.ts";
import { createPgliteDatabase } from "../support/postgres.ts";
import { anOrderOf, recordSale } from "../support/sales-history.ts";
import { auditEntries } from "../support/audit.ts";

const NY = "America/New_York";
const at = (iso: string) => new Date(iso);
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/**
 * A small history in New York around the night the clocks went forward (2026-03-08, 07:00 UTC),
 * with the day each sale and refund falls on there (in UTC some fall on the next).
 */
async function aShopWithHistory(deps: Deps & { repos: Repositories }) {
  const t = createTestApp(deps, { shopTimeZone: NY });
  const ada = aUser();
  const habanero = aProduct({ name: "Habanero", price: 1299 });
  const ghost = aProduct({ name: "Ghost Pepper", price: 850 });
  await deps.repos.users.create(ada);
  await deps.repos.products.create(habanero);
  await deps.repos.products.create(ghost);
  const sale = (lines: Parameters<typeof anOrderOf>[1], tax: number, paid: string | null, refunded: string | null = null) =>
    recordSale(deps.repos, anOrderOf(ada.id, lines, tax, at("2026-03-06T00:00:00Z")), paid ? at(paid) : null, refunded ? at(refunded) : null);
  // 7th, 10:00 EST. $25.98 + $6.99 shipping + $1.62 tax.
  await sale([[habanero, 2]], 162, "2026-03-07T15:00:00Z");
  // 7th, 23:30 EST (the 8th in UTC). $60.46, free shipping, $3.78 tax.
  await sale(
    [
      [ghost, 1],
      [habanero, 4],
    ],
    378,
    "2026-03-08T04:30:00Z",
  );
  // 8th, 01:30 EST, half an hour before the change. $12.99 + $6.99 + $0.81.
  await sale([[habanero, 1]], 81, "2026-03-08T06:30:00Z");
  // 8th, 23:30 EDT (the 9th in UTC), refunded on the 9th at 21:00 EDT (the 10th in UTC). $25.50 + $6.99 + $1.59.
  await sale([[ghost, 3]], 159, "2026-03-09T03:30:00Z", "2026-03-10T01:00:00Z");
  // Paid before the range, refunded within it (the 8th, 11:00 EDT). $8.50 + $6.99 + $0.53.
  await sale([[ghost, 1]], 53, "2026-03-06T12:00:00Z", "2026-03-08T15:00:00Z");
  // Paid at midnight EDT as the 10th begins: outside the range. Never paid: no sale.
  await sale([[ghost, 9]], 500, "2026-03-10T04:00:00Z");
  await sale([[habanero, 9]], 500, null);
  return t;
}

const TARGETS: Array<[string, () => Promise<Deps & { repos: Repositories }>]> = [
  ["memory", async () => createMemoryDeps()],
  [
    "PGlite",
    async () => {
      const database = await createPgliteDatabase();
      closers.push(database.close);
      return createPgDeps(database.db);
    },
  ],
];

describe.each(TARGETS)("GET /api/admin/reports/sales on %s: a small history worked out by hand", (_, open) => {
  let shop: { t: Awaited<ReturnType<typeof aShopWithHistory>>; staff: Awaited<ReturnType<typeof signedInAs>> };
  beforeAll(async () => {
    const t = await aShopWithHistory(await open());
    shop = { t, staff: await signedInAs(t, "STAFF") };
  });
  const report = (query: string) => shop.t.call("GET", `/api/admin/reports/sales?${query}`, { headers: shop.staff.headers });

  test("by day in New York, across the change of clocks, with a refund in a later period than its sale", async () => {
    const res = await report("from=2026-03-07&to=2026-03-09&interval=day");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      error: null,
      data: {
        timeZone: NY,
        from: "2026-03-07",
        to: "2026-03-09",
        interval: "day",
        series: [
          { period: "2026-03-07", orders: 2, units: 7, grossSales: 86.44, refunds: 0, netSales: 86.44, shipping: 6.99, tax: 5.4, averageOrderValue: 43.22 },
          // (25.50 + 12.99) / 2 = 19.245: the average is worked out in cents, 1924.5, and rounds up.
          { period: "2026-03-08", orders: 2, units: 4, grossSales: 38.49, refunds: 8.5, netSales: 29.99, shipping: 6.99, tax: 1.87, averageOrderValue: 19.25 },
          { period: "2026-03-09", orders: 0, units: 0, grossSales: 0, refunds: 25.5, netSales: -25.5, shipping: -6.99, tax: -1.59, averageOrderValue: 0 },
        ],
        totals: { orders: 4, units: 11, grossSales: 124.93, refunds: 34, netSales: 90.93, shipping: 6.99, tax: 5.68, averageOrderValue: 31.23 },
        topProducts: [
          { productId: expect.any(String), name: "Habanero", sku: expect.any(String), units: 7, revenue: 90.93 },
          { productId: expect.any(String), name: "Ghost Pepper", sku: expect.any(String), units: 4, revenue: 34 },
        ],
      },
    });
  });

  test("by week (Monday to Sunday, named by its Monday) and by month: the same sales, added up by period", async () => {
    const weeks = (await report("from=2026-03-07&to=2026-03-09&interval=week")).body.data;
    expect(weeks.series).toEqual([
      { period: "2026-03-02", orders: 4, units: 11, grossSales: 124.93, refunds: 8.5, netSales: 116.43, shipping: 13.98, tax: 7.27, averageOrderValue: 31.23 },
      { period: "2026-03-09", orders: 0, units: 0, grossSales: 0, refunds: 25.5, netSales: -25.5, shipping: -6.99, tax: -1.59, averageOrderValue: 0 },
    ]);
    const months = (await report("from=2026-03-07&to=2026-03-09&interval=month")).body.data;
    expect(months.series).toEqual([{ period: "2026-03-01", ...weeks.totals }]);
    expect(months.totals).toEqual(weeks.totals);
  });
  test("the calendar's ends are reported like any other days: the last month of 9999 ends at the start of the year 10000", async () => {
    for (const query of ["from=9999-12-01&to=9999-12-31", "from=9999-12-27&to=9999-12-31&interval=week", "from=0001-01-01&to=0001-01-31&interval=month"]) {
      const res = await report(query);
      expect({ query, status: res.status, totals: res.body.data?.totals.orders }).toEqual({ query, status: 200, totals: 0 });
    }
    expect((await report("from=9999-12-01&to=9999-12-31")).body.data.series.at(-1).period).toBe("9999-12-31");
    const periods = async (query: string) => (await report(query)).body.data.series.map((p: { period: string }) => p.period);
    expect(await periods("from=0001-01-01&to=0001-02-01&interval=month")).toEqual(["0001-01-01", "0001-02-01"]);
    expect(await periods("from=0050-12-30&to=0051-01-01")).toEqual(["0050-12-30", "0050-12-31", "0051-01-01"]);
  });
});

describe.each(TARGETS)("GET /api/admin/reports/sales on %s, by the shop's clock", (_, open) => {
  test("a day counts sales stamped within it for an hour after it ends (a late commit, a clock behind), and settled, the same", async () => {
    const clock = createFixedClock(at("2026-04-02T00:30:00Z"));
    const deps = { ...(await open()), clock };
    const t = createTestApp(deps, { shopTimeZone: "UTC" });
    const staff = await signedInAs(t, "STAFF");
    const ada = aUser();
    const habanero = aProduct({ name: "Habanero", price: 1299 });
    await deps.repos.users.create(ada);
    await deps.repos.products.create(habanero);
    const sale = (paid: string) => recordSale(deps.repos, anOrderOf(ada.id, [[habanero, 1]], 0, at("2026-04-01T00:00:00Z")), at(paid));
    const ordersOfTheFirst = async () => {
      const res = await t.call("GET", "/api/admin/reports/sales?from=2026-04-01&to=2026-04-02&interval=day", { headers: staff.headers });
      expect(res.status).toBe(200);
      return (res.body as { data: { series: Array<{ period: string; orders: number }> } }).data.series[0];
    };

    await sale("2026-04-01T12:00:00Z");
    expect(await ordersOfTheFirst()).toEqual(expect.objectContaining({ period: "2026-04-01", orders: 1 }));
    // Half an hour after midnight, a payment stamped a second before it lands: the 1st has not settled.
    await sale("2026-04-01T23:59:59Z");
    expect(await ordersOfTheFirst()).toEqual(expect.objectContaining({ orders: 2 }));
    clock.set(at("2026-04-02T01:00:01Z"));
    expect(await ordersOfTheFirst()).toEqual(expect.objectContaining({ orders: 2 }));
  });
});

describe("GET /api/admin/reports/sales: its input", () => {
  test("interval defaults to day; from and to are required real dates, to within 366 days of from, the interval one of three: else 400 naming the field", async () => {
    const t = createTestApp();
    const staff = await signedInAs(t, "STAFF");
    const get = (query: string) => t.call("GET", `/api/admin/reports/sales?${query}`, { headers: staff.headers });
    const ok = await get("from=2026-01-01&to=2027-01-02");
    expect([ok.status, ok.body.data.interval, ok.body.data.series.length, ok.body.data.timeZone]).toEqual([200, "day", 367, "UTC"]);
    for (const [query, path, message] of [
      ["from=2026-01-01&to=2027-01-03", "to", "must be at most 366 days after from"],
      ["from=2026-03-02&to=2026-03-01", "to", "must not be before from"],
      ["to=2026-03-01", "from", null],
      ["from=2026-02-30&to=2026-03-01", "from", null],
      ["from=2026-03-01&to=tomorrow", "to", null],
      ["from=2026-03-01&to=2026-03-02&interval=year", "interval", null],
    ] as const) {
      const res = await get(query);
      expect({ query, status: res.status, success: res.body.success, error: res.body.error }).toEqual({
        query,
        status: 400,
        success: false,
        error: "Invalid request",
      });
      const issue = res.body.details.issues.find((i: { path: string }) => i.path === path);
      expect({ query, issue: Boolean(issue) }).toEqual({ query, issue: true });
      if (message) expect(issue.message).toBe(message);
    }
  });
});

describe("GET /api/admin/reports/sales/export: the series as CSV (analytics:export)", () => {
  test("a download named sales-YYYYMMDD.csv (the shop's date): a header, a row a period, money with two decimals (negative too), CRLF; audited with its filters", async () => {
    const t = await aShopWithHistory({ ...createMemoryDeps(), clock: createFixedClock(at("2026-03-12T15:00:00Z")) });
    const admin = await signedInAs(t, "ADMIN");
    const res = await t.call("GET", "/api/admin/reports/sales/export?from=2026-03-07&to=2026-03-09", { headers: { ...admin.headers, "user-agent": "sheets" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="sales-20260312.csv"');
    expect(res.body).toBe(
      [
        "period,orders,units,grossSales,refunds,netSales,shipping,tax,averageOrderValue",
        "2026-03-07,2,7,86.44,0.00,86.44,6.99,5.40,43.22",
        "2026-03-08,2,4,38.49,8.50,29.99,6.99,1.87,19.25",
        "2026-03-09,0,0,0.00,25.50,-25.50,-6.99,-1.59,0.00",
        "",
      ].join("\r\n"),
    );
    const audit = await auditEntries(t.deps.repos.audit, { action: "report.export" });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      userId: admin.id,
      entityType: "report",
      entityId: "sales",
      userAgent: "sheets",
      changes: { filters: { from: "2026-03-07", to: "2026-03-09", interval: "day" }, timeZone: NY },
    });
  });

  test("refused: without a session 401, STAFF (no analytics:export) 403 in the envelope, a bad range 400; none of them audited", async () => {
    const t = createTestApp();
    const range = "from=2026-03-07&to=2026-03-09";
    expect((await t.call("GET", `/api/admin/reports/sales/export?${range}`)).status).toBe(401);
    const staff = await signedInAs(t, "STAFF");
    const forbidden = await t.call("GET", `/api/admin/reports/sales/export?${range}`, { headers: staff.headers });
    expect([forbidden.status, forbidden.body]).toEqual([
      403,
      { success: false, data: null, error: "Insufficient permissions", details: { required: "analytics:export" } },
    ]);
    const developer = await signedInAs(t, "DEVELOPER" satisfies UserRole);
    const tooLong = await t.call("GET", "/api/admin/reports/sales/export?from=2025-01-01&to=2026-12-31", { headers: developer.headers });
    expect([tooLong.status, tooLong.body.details.issues]).toEqual([400, [{ path: "to", message: "must be at most 366 days after from" }]]);
    expect(await auditEntries(t.deps.repos.audit, { action: "report.export" })).toEqual([]);
  });
});

test("both routes are in the OpenAPI document: the report as the named SalesReportAnswer (SalesReport in the envelope), the export as text/csv", async () => {
  const doc = (await createTestApp().call("GET", "/api/openapi.json")).body;
  const report = doc.paths["/api/admin/reports/sales"].get;
  expect(report.tags).toEqual(["Back office"]);
  expect(report.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SalesReportAnswer" });
  expect(doc.components.schemas.SalesReportAnswer.properties.data).toEqual({ $ref: "#/components/schemas/SalesReport" });
  expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["SalesReport", "SalesPeriod", "SalesTotals", "TopProduct"]));
  const csv = doc.paths["/api/admin/reports/sales/export"].get;
  expect(Object.keys(csv.responses["200"].content)).toEqual(["text/csv"]);
  expect(csv.responses["403"]).toEqual({ $ref: "#/components/responses/EnvelopeForbidden" });
});
