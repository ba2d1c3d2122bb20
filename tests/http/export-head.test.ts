import { describe, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { createTestApp } from "../support/http.ts";
import { createFixedClock, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { auditEntries } from "../support/audit.ts";

// A HEAD asks what a download would be: the orders and users exports answer their headers, and make
// (and audit) no export, since nothing was exported (found by an attack on the back office). It names
// the file as the GET does, by the day of the shop's clock (found by a review: by the system's).
const aDayOfItsOwn = () => createTestApp({ ...createMemoryDeps(), clock: createFixedClock(new Date("2030-01-15T12:00:00Z")) });
describe("HEAD of the orders and users exports", () => {
  test.each([
    ["/api/admin/orders/export", "orders", "order.export"],
    ["/api/admin/users/export", "users", "user.export"],
  ] as const)("%s: the GET's headers, no body, nothing audited; its filters and permission still checked", async (path, what, action) => {
    const t = aDayOfItsOwn();
    const admin = await signedInAs(t, "ADMIN");
    const head = await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: admin.headers }));
    expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/csv; charset=utf-8"]);
    expect(head.headers.get("content-disposition")).toBe(`attachment; filename="${what}-20300115.csv"`);
    expect(await head.text()).toBe("");
    expect(await auditEntries(t.deps.repos.audit, { action })).toEqual([]);

    const badFilter = await t.app.handle(new Request(`http://localhost${path}?q=${"x".repeat(101)}`, { method: "HEAD", headers: admin.headers }));
    expect(badFilter.status).toBe(400);
    const customer = await signedInAs(t, "CUSTOMER");
    expect((await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: customer.headers }))).status).toBe(403);
    // The GET itself is audited as ever, and names its file as the HEAD did.
    const get = await t.call("GET", path, { headers: admin.headers });
    expect([get.status, get.headers.get("content-disposition")]).toEqual([200, head.headers.get("content-disposition")]);
    expect(await auditEntries(t.deps.repos.audit, { action })).toHaveLength(1);
  });
});

test("HEAD of the sales export: the GET's headers, no report made and none audited (found by a review: it built and audited the report, and logged the body it never sent as abandoned)", async () => {
  const t = aDayOfItsOwn();
  const admin = await signedInAs(t, "ADMIN");
  const path = "/api/admin/reports/sales/export?from=2029-12-01&to=2030-01-14";
  const head = await t.app.handle(new Request(`http://localhost${path}`, { method: "HEAD", headers: admin.headers }));
  expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/csv; charset=utf-8"]);
  expect(head.headers.get("content-disposition")).toBe('attachment; filename="sales-20300115.csv"');
  expect(await head.text()).toBe("");
  expect(await auditEntries(t.deps.repos.audit, { action: "report.export" })).toEqual([]);
  const get = await t.call("GET", path, { headers: admin.headers });
  expect([get.status, get.headers.get("content-disposition")]).toEqual([200, head.headers.get("content-disposition")]);
  expect(await auditEntries(t.deps.repos.audit, { action: "report.export" })).toHaveLength(1);
});
