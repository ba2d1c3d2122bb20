import { beforeEach, describe, expect, test } from "bun:test";
import { cuid2Ids } from "../../src/adapters/system.ts";
import type { Address } from "../../src/domain/address.ts";
import { type Order, newOrder } from "../../src/domain/order.ts";
import type { User } from "../../src/domain/user.ts";
import { createFixedClock, createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct, aUser, orderedLinesOf } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

let t: TestApp;
let staff: Awaited<ReturnType<typeof signedInAs>>;
beforeEach(async () => {
  t = createTestApp();
  staff = await signedInAs(t, "STAFF");
});

const austin: Address = { address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" };

/** An order stored as a checkout would have made it, one line per product (quantity 1, 2, …). */
async function anOrder(
  customer: User,
  fields: { at: string; products?: Array<{ name: string; sku?: string; price: number }>; address?: Address } & Partial<Order>,
) {
  const products = (fields.products ?? [{ name: "Habanero", price: 1299 }]).map((p) => aProduct(p));
  for (const p of products) await t.deps.repos.products.create(p);
  const { at, address = austin, products: _, ...overrides } = fields;
  const order = {
    ...newOrder({
      id: cuid2Ids.next(),
      orderNumber: `SF-${at.slice(0, 10).replaceAll("-", "")}-${cuid2Ids.next().slice(0, 4).toUpperCase()}`,
      userId: customer.id,
      itemIds: products.map(() => cuid2Ids.next()),
      lines: orderedLinesOf(products),
      shippingAddress: address,
      billingAddress: address,
      tax: 107,
      notes: null,
      at: new Date(at),
    }),
    ...overrides,
  };
  await t.deps.repos.orders.create(order);
  return order;
}

async function aCustomer(fields: Partial<User> = {}) {
  const user = aUser(fields);
  await t.deps.repos.users.create(user);
  return user;
}

const get = (path: string, headers = staff.headers) => t.call("GET", path, { headers });

describe("GET /api/admin/orders (orders:read)", () => {
  test("every customer's orders newest first in the envelope: each the Order of GET /api/orders/:id, its customer and its line count", async () => {
    const ada = await aCustomer({ email: "ada@example.com", name: "Ada" });
    const bo = await aCustomer({ email: "bo@example.com", name: null });
    const older = await anOrder(ada, { at: "2026-10-01T10:00:00Z" });
    const newer = await anOrder(bo, {
      at: "2026-10-02T10:00:00Z",
      products: [
        { name: "A", sku: "A-1", price: 500 },
        { name: "B", sku: "B-1", price: 700 },
      ],
    });
    const res = await get("/api/admin/orders?limit=1");
    expect(res.status).toBe(200);
    const asCustomerSeesIt = (await t.call("GET", `/api/orders/${newer.id}`, { headers: staff.headers })).body;
    expect(res.body).toEqual({
      success: true,
      data: [{ ...asCustomerSeesIt, customer: { id: bo.id, email: "bo@example.com", name: null }, itemCount: 2 }],
      error: null,
      meta: { total: 2, page: 1, limit: 1 },
    });
    const second = await get("/api/admin/orders?limit=1&page=2");
    expect(second.body.data.map((o: { id: string }) => o.id)).toEqual([older.id]);
    expect(second.body.meta).toEqual({ total: 2, page: 2, limit: 1 });
  });

  test("the filters from the query string: one value or several, comma-separated; q; from and to; customerId; together", async () => {
    const ada = await aCustomer({ email: "ada@example.com", name: "Ada Lovelace" });
    const bo = await aCustomer({ email: "bo@example.com", name: "Diddley, Bo" });
    const pending = await anOrder(ada, { at: "2026-10-01T10:00:00Z" });
    const paid = await anOrder(ada, { at: "2026-10-02T10:00:00Z", status: "CONFIRMED", paymentStatus: "PAID" });
    const refunded = await anOrder(bo, { at: "2026-10-03T10:00:00Z", status: "REFUNDED", paymentStatus: "REFUNDED" });
    const ids = async (query: string) => {
      const res = await get(`/api/admin/orders?${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((o: { id: string }) => o.id);
    };
    expect(await ids("status=PENDING")).toEqual([pending.id]);
    expect(await ids("status=CONFIRMED,REFUNDED")).toEqual([refunded.id, paid.id]);
    expect(await ids("paymentStatus=PAID,%20PENDING")).toEqual([paid.id, pending.id]);
    expect(await ids("q=LOVELACE")).toEqual([paid.id, pending.id]);
    expect(await ids("q=diddley,%20bo")).toEqual([refunded.id]);
    expect(await ids(`q=${refunded.orderNumber.slice(-4).toLowerCase()}`)).toEqual([refunded.id]);
    expect(await ids("q=%20%20")).toEqual([refunded.id, paid.id, pending.id]);
    expect(await ids("from=2026-10-02")).toEqual([refunded.id, paid.id]);
    expect(await ids("to=2026-10-02T10:00:00Z")).toEqual([pending.id]);
    expect(await ids("from=2026-10-02T12:00:00%2B02:00&to=2026-10-03")).toEqual([paid.id]);
    expect(await ids(`customerId=${bo.id}`)).toEqual([refunded.id]);
    expect(await ids(`customerId=${ada.id}&status=PENDING,CONFIRMED&paymentStatus=PAID&q=ada@&from=2026-10-01&to=2026-10-03`)).toEqual([paid.id]);
  });

  test("a date is a day of the shop's zone (SHOP_TIMEZONE), as the sales report's days are; a time with its offset is that instant; the export is named after the shop's day", async () => {
    // Exported at 21:30 on 27 November in New York, already the 28th in UTC.
    t = createTestApp({ ...createMemoryDeps(), clock: createFixedClock(new Date("2026-11-28T02:30:00Z")) }, { shopTimeZone: "America/New_York" });
    staff = await signedInAs(t, "STAFF");
    const ada = await aCustomer();
    // 22:30 on 26 November in New York, 03:30 on the 27th in UTC; then 20:00 on the 27th there (01:00 on the 28th in UTC).
    const lateOn26th = await anOrder(ada, { at: "2026-11-27T03:30:00Z" });
    const eveningOn27th = await anOrder(ada, { at: "2026-11-28T01:00:00Z" });
    const ids = async (query: string) => (await get(`/api/admin/orders?${query}`)).body.data.map((o: { id: string }) => o.id);
    expect(await ids("from=2026-11-26&to=2026-11-27")).toEqual([lateOn26th.id]);
    expect(await ids("from=2026-11-27&to=2026-11-28")).toEqual([eveningOn27th.id]);
    expect(await ids("from=2026-11-27T00:00:00Z&to=2026-11-28T00:00:00Z")).toEqual([lateOn26th.id]);
    const exported = await get("/api/admin/orders/export?from=2026-11-27&to=2026-11-28");
    expect(exported.status).toBe(200);
    expect(exported.body).toContain(eveningOn27th.orderNumber);
    expect(exported.body).not.toContain(lateOn26th.orderNumber);
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="orders-20261127.csv"');
  });

  test("a bad filter value is 400 naming the field, in the envelope", async () => {
    for (const [query, field] of [
      ["status=LOST", "status"],
      ["status=PENDING,", "status"],
      ["paymentStatus=PAID,pending", "paymentStatus"],
      ["from=yesterday", "from"],
      ["to=2026-02-30", "to"],
      ["from=2026-10-02&to=2026-10-01", "to"],
      // Outside the years every database reads (the embedded one answered 500; found by a review).
      ["from=0000-01-01", "from"],
      ["to=9999-12-31T23:00:00-05:00", "to"],
      ["customerId=42", "customerId"],
      [`q=${"x".repeat(101)}`, "q"],
      ["page=0", "page"],
      ["limit=101", "limit"],
    ]) {
      const res = await get(`/api/admin/orders?${query}`);
      expect({ query, status: res.status, body: res.body }).toMatchObject({
        query,
        status: 400,
        body: { success: false, data: null, error: "Invalid request", details: { issues: [{ path: field }] } },
      });
    }
  });
});

describe("GET /api/admin/orders/:id (orders:read)", () => {
  test("the order with its customer, its payment facts and its history; 404 unknown, 400 not an id", async () => {
    const ada = await aCustomer({ email: "ada@example.com", name: "Ada" });
    const order = await anOrder(ada, {
      at: "2026-10-01T10:00:00Z",
      status: "CONFIRMED",
      paymentStatus: "PAID",
      stripePaymentIntentId: "pi_1",
      paymentAttempts: 2,
      paidVia: "stripe",
      paidReference: "pi_1",
    });
    const entry = { userId: null, entityType: "order", entityId: order.id, changes: {}, ipAddress: null, userAgent: null };
    await t.deps.repos.audit.record({ ...entry, id: cuid2Ids.next(), action: "payment.succeeded", createdAt: new Date("2026-10-01T10:05:00Z") });
    await t.deps.repos.audit.record({ ...entry, id: cuid2Ids.next(), action: "order.create", createdAt: new Date("2026-10-01T10:00:00Z") });
    const res = await get(`/api/admin/orders/${order.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: order.id,
      orderNumber: order.orderNumber,
      total: order.total / 100,
      customer: { id: ada.id, email: "ada@example.com", name: "Ada" },
      itemCount: 1,
      payment: { provider: "stripe", intentId: "pi_1", attempts: 2, attemptStartedAt: null, paidReference: "pi_1", refunds: [] },
    });
    expect(res.body.data.history.map((e: { action: string; createdAt: string }) => [e.action, e.createdAt])).toEqual([
      ["order.create", "2026-10-01T10:00:00.000Z"],
      ["payment.succeeded", "2026-10-01T10:05:00.000Z"],
    ]);
    expect(res.body.data.historyTotal).toBe(2);
    // The moves the status table allows from CONFIRMED, each with what it asks: ending this paid order refunds it.
    expect(res.body.data.moves).toEqual([
      { status: "PROCESSING", permissions: ["orders:write"], refunds: false, needsTrackingNumber: false },
      { status: "CANCELLED", permissions: ["orders:write", "financials:refunds"], refunds: true, needsTrackingNumber: false },
      { status: "REFUNDED", permissions: ["orders:write", "financials:refunds"], refunds: true, needsTrackingNumber: false },
    ]);
    expect((await get("/api/admin/orders/z12345678901234567890123")).body).toEqual({ success: false, data: null, error: "Order not found" });
    expect((await get("/api/admin/orders/not-an-id")).status).toBe(400);
  });

  test("an order with thousands of entries (a customer trying card after card) shows its latest 100, oldest first, and how many in all (found by an attack: 92 MB)", async () => {
    const ada = await aCustomer();
    const order = await anOrder(ada, { at: "2026-10-01T10:00:00Z" });
    const start = Date.parse("2026-10-01T10:00:00Z");
    for (let i = 0; i < 2_000; i++) {
      await t.deps.repos.audit.record({
        id: cuid2Ids.next(),
        userId: ada.id,
        action: i === 0 ? "order.create" : "payment.failed",
        entityType: "order",
        entityId: order.id,
        changes: { attempt: i },
        ipAddress: null,
        userAgent: null,
        createdAt: new Date(start + i * 1_000),
      });
    }
    const res = await get(`/api/admin/orders/${order.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.historyTotal).toBe(2_000);
    expect(res.body.data.history.map((e: { changes: { attempt: number } }) => e.changes.attempt)).toEqual(Array.from({ length: 100 }, (_, i) => 1_900 + i));
  });
});

describe("GET /api/admin/orders/export (orders:export)", () => {
  const csvLines = (text: string) => text.split("\r\n").slice(0, -1);

  test("a streamed CSV download: a header row, one row per line, money in dollars with two decimals", async () => {
    const ada = await aCustomer({ email: "ada@example.com", name: "Ada" });
    const order = await anOrder(ada, {
      at: "2026-10-01T10:00:00Z",
      products: [
        { name: "Habanero", sku: "HAB-1", price: 1299 },
        { name: "Verde", sku: "VER-1", price: 450 },
      ],
    });
    const res = await get("/api/admin/orders/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="orders-\d{8}\.csv"$/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const base = `${order.orderNumber},2026-10-01T10:00:00.000Z,2026-10-01T10:00:00.000Z,PENDING,PENDING,${ada.id},ada@example.com,Ada,1 Main St,,Austin,TX,78701,US,`;
    // 12.99 + 2 × 4.50 = 21.99, shipping 6.99, tax 1.07.
    expect(csvLines(res.body)).toEqual([
      "orderNumber,createdAt,updatedAt,status,paymentStatus,customerId,customerEmail,customerName,shippingAddress1,shippingAddress2,shippingCity,shippingState,shippingPostalCode,shippingCountry,trackingNumber,productSku,productName,quantity,unitPrice,lineTotal,orderSubtotal,orderShipping,orderTax,orderDiscount,orderTotal",
      `${base},HAB-1,Habanero,1,12.99,12.99,21.99,6.99,1.07,0.00,30.05`,
      `${base},VER-1,Verde,2,4.50,9.00,21.99,6.99,1.07,0.00,30.05`,
    ]);
  });

  test("commas, quotes and line breaks in names and addresses are quoted; formula cells are neutralized; non-ASCII is kept in UTF-8", async () => {
    const zoe = await aCustomer({ email: "zoe@example.com", name: 'Zoë "Z" O\'Brien, Jr.' });
    const plotter = await aCustomer({ email: "plot@example.com", name: '=HYPERLINK("http://evil.example","click")' });
    const address: Address = {
      address1: '12 Rue de l\'Église, Bât. 2\nEntrée "B"',
      address2: "@SUM(A1:A9)",
      city: "Saint-Étienne",
      state: "+42",
      postalCode: "-42000",
      country: "FR",
    };
    const abroad = await anOrder(zoe, { at: "2026-10-02T10:00:00Z", address, products: [{ name: "Piment d'Espelette — 🌶️", sku: "ESP-1", price: 1500 }] });
    await anOrder(plotter, { at: "2026-10-01T10:00:00Z", products: [{ name: "-1 Sauce", sku: "=1+1", price: 100 }] });
    const res = await get("/api/admin/orders/export");
    const bytes = new TextEncoder().encode(res.body);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toBe(res.body);
    expect(res.body).toContain(
      `${abroad.orderNumber},2026-10-02T10:00:00.000Z,2026-10-02T10:00:00.000Z,PENDING,PENDING,${zoe.id},zoe@example.com,"Zoë ""Z"" O'Brien, Jr.",` +
        `"12 Rue de l'Église, Bât. 2\nEntrée ""B""",'@SUM(A1:A9),Saint-Étienne,'+42,'-42000,FR,,ESP-1,Piment d'Espelette — 🌶️,1,15.00,15.00,15.00,24.99,`,
    );
    expect(res.body).toContain(`plot@example.com,"'=HYPERLINK(""http://evil.example"",""click"")",1 Main St,`);
    expect(res.body).toContain(",'=1+1,'-1 Sauce,1,1.00,1.00,");
    // The line break inside the quoted address is the only bare LF: every row ends in CRLF.
    expect(res.body.split("\r\n")).toHaveLength(4);
  });

  test("audited as order.export with who asked, from where, and the filters; the filters choose the rows", async () => {
    const ada = await aCustomer({ email: "ada@example.com", name: "Ada" });
    const bo = await aCustomer({ email: "bo@example.com", name: "Bo" });
    const mine = await anOrder(ada, { at: "2026-10-02T10:00:00Z", status: "CONFIRMED", paymentStatus: "PAID" });
    await anOrder(ada, { at: "2026-10-01T10:00:00Z" });
    await anOrder(bo, { at: "2026-10-02T11:00:00Z", status: "CONFIRMED", paymentStatus: "PAID" });
    const res = await t.call(
      "GET",
      `/api/admin/orders/export?status=CONFIRMED,SHIPPED&paymentStatus=PAID&q=ADA&from=2026-10-01&to=2026-10-03&customerId=${ada.id}`,
      {
        headers: { ...staff.headers, "user-agent": "export-test", "x-forwarded-for": "198.51.100.7" },
      },
    );
    expect(csvLines(res.body).map((line) => line.split(",")[0])).toEqual(["orderNumber", mine.orderNumber]);
    expect(await auditEntries(t.deps.repos.audit, { action: "order.export" })).toEqual([
      {
        id: expect.any(String),
        userId: staff.id,
        action: "order.export",
        entityType: "order",
        entityId: null,
        changes: {
          by: "STAFF",
          filters: {
            statuses: ["CONFIRMED", "SHIPPED"],
            paymentStatuses: ["PAID"],
            q: "ADA",
            from: "2026-10-01T00:00:00.000Z",
            to: "2026-10-03T00:00:00.000Z",
            customerId: ada.id,
          },
        },
        ipAddress: "198.51.100.7",
        userAgent: "export-test",
        createdAt: expect.any(Date),
      },
    ]);
  });

  test("a bad filter is 400 in the envelope before anything is exported or audited", async () => {
    const res = await get("/api/admin/orders/export?status=LOST");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null, error: "Invalid request", details: { issues: [{ path: "status" }] } });
    expect(await auditEntries(t.deps.repos.audit, { action: "order.export" })).toEqual([]);
  });
});

test("the OpenAPI document names the answers and says the export is text/csv", async () => {
  const doc = (await t.call("GET", "/api/openapi.json")).body;
  const schemaOf = (path: string, status = "200") => doc.paths[path].get.responses[status].content;
  expect(schemaOf("/api/admin/orders")["application/json"].schema).toEqual({ $ref: "#/components/schemas/AdminOrderPage" });
  expect(schemaOf("/api/admin/orders/{id}")["application/json"].schema).toEqual({ $ref: "#/components/schemas/AdminOrderAnswer" });
  expect(Object.keys(schemaOf("/api/admin/orders/export"))).toEqual(["text/csv"]);
  expect(doc.paths["/api/admin/orders/export"].get.responses["403"]).toEqual({ $ref: "#/components/responses/EnvelopeForbidden" });
  expect(doc.paths["/api/admin/orders/export"].get.summary).toContain("orders:export");
  expect(doc.components.schemas.AdminOrder.properties.itemCount).toMatchObject({ type: "integer" });
});
