import { describe, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

// A HEAD asks what a download would be: the orders and users exports answer their headers, and make
// (and audit) no export, since nothing was exported (found by an attack on the back office).
describe("HEAD of the orders and users exports", () => {
  test.each([
    ["/api/admin/orders/export", "orders", "order.export"],
    ["/api/admin/users/export", "users", "user.export"],
  ] as const)("%s: the GET's headers, no body, nothing audited; its filters and permission still checked", async (path, what, action) => {
    const t = createTestApp();
    const admin = await signedInAs(t, "ADMIN");
    const head = await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: admin.headers }));
    expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/csv; charset=utf-8"]);
    expect(head.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="${what}-\\d{8}\\.csv"$`));
    expect(await head.text()).toBe("");
    expect(await auditEntries(t.deps.repos.audit, { action })).toEqual([]);

    const badFilter = await t.app.handle(new Request(`http://localhost${path}?q=${"x".repeat(101)}`, { method: "HEAD", headers: admin.headers }));
    expect(badFilter.status).toBe(400);
    const customer = await signedInAs(t, "CUSTOMER");
    expect((await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: customer.headers }))).status).toBe(403);
    // The GET itself is audited as ever.
    expect((await t.call("GET", path, { headers: admin.headers })).status).toBe(200);
    expect(await auditEntries(t.deps.repos.audit, { action })).toHaveLength(1);
  });
});

test("HEAD of the sales export: the GET's headers, no report made and none audited (found by a review: it built and audited the report, and logged the body it never sent as abandoned)", async () => {
  const t = createTestApp();
  const admin = await signedInAs(t, "ADMIN");
  const path = "/api/admin/reports/sales/export?from=2026-11-01&to=2026-11-27";
  const head = await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: admin.headers }));
  expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/csv; charset=utf-8"]);
  expect(head.headers.get("content-disposition")).toMatch(/^attachment; filename="sales-\d{8}\.csv"$/);
  expect(await head.text()).toBe("");
  expect(await auditEntries(t.deps.repos.audit, { action: "report.export" })).toEqual([]);
  expect((await t.call("GET", path, { headers: admin.headers })).status).toBe(200);
  expect(await auditEntries(t.deps.repos.audit, { action: "report.export" })).toHaveLength(1);
});
