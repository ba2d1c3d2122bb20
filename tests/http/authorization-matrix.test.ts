import { describe, expect, test } from "bun:test";
import type { UserRole } from "../../src/domain/user.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { createTestApp } from "../support/http.ts";

type Caller = "anonymous" | UserRole;
const CALLERS: Caller[] = ["anonymous", "CUSTOMER", "WHOLESALE", "FUNDRAISER", "STAFF", "ADMIN", "DEVELOPER"];

/** What a route's path may name: the product set up for the test, and a cart line of the caller's own. */
interface Fixture {
  productId: string;
  lineId: string;
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
    body: { name: "Matrix Sauce", sku: `MX-${crypto.randomUUID()}`, price: 5, featuredImage: "https://img.example.com/m.jpg", heatLevel: 1, inventory: 1 },
    expect: productWriters(201),
  },
  { name: "update product", method: "PUT", path: ({ productId }) => `/api/products/${productId}`, body: { inventory: 7 }, expect: productWriters(200) },
  { name: "delete product", method: "DELETE", path: ({ productId }) => `/api/products/${productId}`, expect: productWriters(200) },
  { name: "read own cart", method: "GET", path: () => "/api/cart", expect: signedIn },
  { name: "add to cart", method: "POST", path: () => "/api/cart", body: (f: Fixture) => ({ productId: f.productId, quantity: 1 }), expect: signedIn },
  { name: "add to cart (alias)", method: "POST", path: () => "/api/cart/items", body: (f: Fixture) => ({ productId: f.productId, quantity: 1 }), expect: signedIn },
  { name: "change own cart line", method: "PUT", path: ({ lineId }) => `/api/cart/${lineId}`, body: { quantity: 3 }, expect: signedIn },
  { name: "remove own cart line", method: "DELETE", path: ({ lineId }) => `/api/cart/${lineId}`, expect: signedIn },
  { name: "remove own cart line (alias)", method: "DELETE", path: ({ lineId }) => `/api/cart/items/${lineId}`, expect: signedIn },
];

describe("authorization matrix: every protected route × every kind of caller", () => {
  for (const route of ROUTES) {
    test.each(CALLERS)(`${route.method} ${route.name} as %s`, async (caller) => {
      const t = createTestApp();
      const product = aProduct({ inventory: 10 });
      await t.deps.repos.products.create(product);
      const account = await signedInAs(t, caller === "anonymous" ? "CUSTOMER" : caller);
      const headers = caller === "anonymous" ? {} : account.headers;
      const line = await t.useCases.addToCart(account.id, { productId: product.id, quantity: 1 }, { ipAddress: null, userAgent: null });
      const fixture = { productId: product.id, lineId: line.id };
      const body = typeof route.body === "function" ? route.body(fixture) : route.body;
      const res = await t.call(route.method, route.path(fixture), { body, headers });
      expect(res.status).toBe(route.expect[caller] ?? route.expect.otherwise);
      if (res.status === 401) expect(res.body.error).toBe("Unauthorized - authentication required");
    });
  }
});
