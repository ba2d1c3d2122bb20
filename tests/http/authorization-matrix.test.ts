import { describe, expect, test } from "bun:test";
import type { UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

type Caller = "anonymous" | UserRole;
const CALLERS: Caller[] = ["anonymous", "CUSTOMER", "WHOLESALE", "FUNDRAISER", "STAFF", "ADMIN", "DEVELOPER"];

/** What a route's path may name: the product set up for the test, a cart line and an order of the caller's own, another user's orders. */
interface Fixture {
  productId: string;
  lineId: string;
  ownOrderId: string;
  othersOrderId: string;
  paidOrderId: string;
  /** Another user's account (a CUSTOMER). */
  othersUserId: string;
}

interface Route {
  name: string;
  method: string;
  path: (fixture: Fixture) => string;
  body?: unknown | ((fixture: Fixture) => unknown);
  /** Status for each caller; missing callers get `otherwise`. */
  expect: Partial<Record<Caller, number>> & { otherwise: number };
}

const signedIn = { anonymous: 401, otherwise: 200 };
const productWriters = (success: number) => ({ anonymous: 401, STAFF: success, ADMIN: success, DEVELOPER: success, otherwise: 403 });
const staffOnly = productWriters(200);
const refunders = { anonymous: 401, ADMIN: 200, DEVELOPER: 200, otherwise: 403 };
/** Decisions §12: users:read is STAFF's too by default; users:write, users:export and settings:read only ADMIN's and DEVELOPER's. */
const userReaders = { anonymous: 401, STAFF: 200, ADMIN: 200, DEVELOPER: 200, otherwise: 403 };
const adminsOnly = { anonymous: 401, ADMIN: 200, DEVELOPER: 200, otherwise: 403 };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

const ROUTES: Route[] = [
  { name: "read own profile", method: "GET", path: () => "/api/users/me", expect: signedIn },
  { name: "change own profile", method: "PUT", path: () => "/api/users/me", body: { name: "Renamed" }, expect: signedIn },
  {
    name: "change own password",
    method: "POST",
    path: () => "/api/users/password",
    body: { currentPassword: "correct horse battery", newPassword: "another long one" },
    expect: signedIn,
  },
  {
    name: "create product",
    method: "POST",
    path: () => "/api/products",
    // A name and SKU of each case's own: the cases of a route share a shop.
    body: () => {
      const id = crypto.randomUUID();
      return { name: `Matrix Sauce ${id}`, sku: `MX-${id}`, price: 5, featuredImage: "https://img.example.com/m.jpg", heatLevel: 1, inventory: 1 };
    },
    expect: productWriters(201),
  },
  { name: "update product", method: "PUT", path: ({ productId }) => `/api/products/${productId}`, body: { price: 7 }, expect: productWriters(200) },
  { name: "delete product", method: "DELETE", path: ({ productId }) => `/api/products/${productId}`, expect: productWriters(200) },
  { name: "read own cart", method: "GET", path: () => "/api/cart", expect: signedIn },
  { name: "add to cart", method: "POST", path: () => "/api/cart", body: (f: Fixture) => ({ productId: f.productId, quantity: 1 }), expect: signedIn },
  {
    name: "add to cart (alias)",
    method: "POST",
    path: () => "/api/cart/items",
    body: (f: Fixture) => ({ productId: f.productId, quantity: 1 }),
    expect: signedIn,
  },
  { name: "change own cart line", method: "PUT", path: ({ lineId }) => `/api/cart/${lineId}`, body: { quantity: 3 }, expect: signedIn },
  { name: "remove own cart line", method: "DELETE", path: ({ lineId }) => `/api/cart/${lineId}`, expect: signedIn },
  { name: "remove own cart line (alias)", method: "DELETE", path: ({ lineId }) => `/api/cart/items/${lineId}`, expect: signedIn },
  {
    name: "place an order",
    method: "POST",
    path: () => "/api/orders",
    body: (f: Fixture) => ({ cartItemIds: [f.lineId], shippingAddress: texas }),
    expect: signedIn,
  },
  { name: "check out the cart", method: "POST", path: () => "/api/cart/checkout", body: { shippingAddress: texas }, expect: signedIn },
  { name: "list own orders", method: "GET", path: () => "/api/orders", expect: signedIn },
  { name: "read own order", method: "GET", path: ({ ownOrderId }) => `/api/orders/${ownOrderId}`, expect: signedIn },
  { name: "read another user's order (orders:read)", method: "GET", path: ({ othersOrderId }) => `/api/orders/${othersOrderId}`, expect: staffOnly },
  { name: "cancel own unpaid order", method: "POST", path: ({ ownOrderId }) => `/api/orders/${ownOrderId}/cancel`, expect: signedIn },
  {
    name: "pay own order",
    method: "POST",
    path: () => "/api/payment",
    body: ({ ownOrderId }: Fixture) => ({ orderId: ownOrderId, paymentMethodId: "pm_card_visa" }),
    expect: signedIn,
  },
  {
    name: "move an order (orders:write)",
    method: "PUT",
    path: ({ othersOrderId }) => `/api/orders/${othersOrderId}/status`,
    body: { status: "CONFIRMED" },
    expect: staffOnly,
  },
  {
    name: "cancel a paid order (+ financials:refunds)",
    method: "PUT",
    path: ({ paidOrderId }) => `/api/orders/${paidOrderId}/status`,
    body: { status: "CANCELLED" },
    expect: refunders,
  },
  // The back office's products (decisions §12): products:read and products:write, STAFF's by default.
  { name: "list every product (products:read)", method: "GET", path: () => "/api/admin/products?lowStock=true", expect: staffOnly },
  {
    name: "adjust inventory (products:write)",
    method: "POST",
    path: ({ productId }) => `/api/admin/products/${productId}/inventory`,
    body: { delta: 5, reason: "Delivery" },
    expect: staffOnly,
  },
  { name: "list accounts (users:read)", method: "GET", path: () => "/api/admin/users", expect: userReaders },
  { name: "read an account (users:read)", method: "GET", path: ({ othersUserId }) => `/api/admin/users/${othersUserId}`, expect: userReaders },
  {
    name: "change an account's role (users:write)",
    method: "PUT",
    path: ({ othersUserId }) => `/api/admin/users/${othersUserId}/role`,
    body: { role: "WHOLESALE" },
    expect: adminsOnly,
  },
  { name: "export accounts (users:export)", method: "GET", path: () => "/api/admin/users/export", expect: adminsOnly },
  { name: "read the audit log (settings:read)", method: "GET", path: () => "/api/admin/audit", expect: adminsOnly },
  // Decisions §12: analytics:read is STAFF's too; analytics:export only ADMIN's and DEVELOPER's.
  { name: "sales report (analytics:read)", method: "GET", path: () => "/api/admin/reports/sales?from=2026-03-01&to=2026-03-31", expect: staffOnly },
  {
    name: "sales report export (analytics:export)",
    method: "GET",
    path: () => "/api/admin/reports/sales/export?from=2026-03-01&to=2026-03-31&interval=week",
    expect: { anonymous: 401, ADMIN: 200, DEVELOPER: 200, otherwise: 403 },
  },
  { name: "back office: the orders queue (orders:read)", method: "GET", path: () => "/api/admin/orders?status=PENDING", expect: staffOnly },
  { name: "back office: one order (orders:read)", method: "GET", path: ({ othersOrderId }) => `/api/admin/orders/${othersOrderId}`, expect: staffOnly },
  { name: "back office: the orders export (orders:export)", method: "GET", path: () => "/api/admin/orders/export", expect: staffOnly },
];

/** An order of the user's, for one unit of the product; paid when asked. */
async function anOrder(t: ReturnType<typeof createTestApp>, userId: string, productId: string, paid = false) {
  const origin = { ipAddress: null, userAgent: null };
  const line = await t.useCases.addToCart(userId, { productId, quantity: 1 }, origin);
  const { orderId } = await t.useCases.placeOrder(userId, { cartItemIds: [line.id], shippingAddress: texas }, origin);
  if (paid) {
    const intent = (await t.deps.repos.orders.findById(orderId))!.stripePaymentIntentId!;
    await t.deps.payments.confirmIntent(intent, "pm_card_visa", `pay-${orderId}`);
    await t.deps.repos.orders.update(orderId, { status: "CONFIRMED", paymentStatus: "PAID", updatedAt: new Date() });
  }
  return orderId;
}

describe("authorization matrix: every protected route × every kind of caller", () => {
  for (const route of ROUTES) {
    // A shop for each route (making one takes tens of milliseconds; 217 took most of the file's time),
    // in which each caller's case makes its own product, accounts, orders and cart line.
    let shop: TestApp | undefined;
    test.each(CALLERS)(`${route.method} ${route.name} as %s`, async (caller) => {
      shop ??= createTestApp();
      const t = shop;
      const product = aProduct({ inventory: 10 });
      await t.deps.repos.products.create(product);
      const account = await signedInAs(t, caller === "anonymous" ? "CUSTOMER" : caller);
      const headers = caller === "anonymous" ? {} : account.headers;
      const other = await signedInAs(t);
      const fixture = {
        productId: product.id,
        ownOrderId: await anOrder(t, account.id, product.id),
        othersOrderId: await anOrder(t, other.id, product.id),
        paidOrderId: await anOrder(t, other.id, product.id, true),
        othersUserId: other.id,
        lineId: (await t.useCases.addToCart(account.id, { productId: product.id, quantity: 1 }, { ipAddress: null, userAgent: null })).id,
      };
      const body = typeof route.body === "function" ? route.body(fixture) : route.body;
      const res = await t.call(route.method, route.path(fixture), { body, headers });
      expect(res.status).toBe(route.expect[caller] ?? route.expect.otherwise);
      if (res.status === 401) expect(res.body.error).toBe("Unauthorized - authentication required");
    });
  }
});

test("the matrix holds every route that needs a session or a permission, as the OpenAPI document lists them", async () => {
  const doc = (await createTestApp().call("GET", "/api/openapi.json")).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const guarded = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod)
      // A requirement of {} is "or none": the route answers without a session too (the session, signing out).
      .filter(([, operation]) => (operation.security ?? []).length > 0 && !(operation.security ?? []).some((r) => Object.keys(r as object).length === 0))
      .map(([method]) => ({ method: method.toUpperCase(), path })),
  );
  const names = "x";
  const fixture: Fixture = { productId: names, lineId: names, ownOrderId: names, othersOrderId: names, paidOrderId: names, othersUserId: names };
  const inMatrix = (route: { method: string; path: string }) => {
    const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return ROUTES.some((r) => r.method === route.method && pattern.test(r.path(fixture).split("?")[0]!));
  };
  expect(guarded.filter((route) => !inMatrix(route)).map((route) => `${route.method} ${route.path}`)).toEqual([]);
});
