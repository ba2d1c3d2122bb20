import { beforeEach, describe, expect, test } from "bun:test";
import type { Product } from "../../src/domain/product.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
let habanero: Product;
let verde: Product;

beforeEach(async () => {
  t = createTestApp();
  me = await signedInAs(t);
  habanero = aProduct({ name: "Habanero", slug: "habanero", price: 1099, compareAtPrice: 1299, heatLevel: 4, inventory: 12 });
  verde = aProduct({ name: "Verde", slug: "verde", price: 333, heatLevel: 1, inventory: 99 });
  await t.deps.repos.products.create(habanero);
  await t.deps.repos.products.create(verde);
});

const add = (productId: string, quantity: number, headers = me.headers) => t.call("POST", "/api/cart", { body: { productId, quantity }, headers });

describe("cart", () => {
  test("GET /api/cart is empty at first", async () => {
    const res = await t.call("GET", "/api/cart", { headers: me.headers });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], itemCount: 0, totalQuantity: 0, subtotal: 0 });
  });

  test("POST returns the line with the short product; GET returns full products and totals in exact dollars", async () => {
    const added = await add(habanero.id, 2);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      success: true,
      cartItem: {
        id: expect.any(String),
        productId: habanero.id,
        quantity: 2,
        product: { id: habanero.id, name: "Habanero", price: 10.99, featuredImage: habanero.featuredImage },
      },
    });
    t.deps.clock.advance(1_000);
    await add(verde.id, 3);
    const cart = await t.call("GET", "/api/cart", { headers: me.headers });
    expect(cart.body).toEqual({
      items: [
        {
          id: added.body.cartItem.id,
          productId: habanero.id,
          quantity: 2,
          product: {
            id: habanero.id,
            name: "Habanero",
            slug: "habanero",
            price: 10.99,
            compareAtPrice: 12.99,
            featuredImage: habanero.featuredImage,
            heatLevel: 4,
            inventory: 12,
          },
        },
        {
          id: expect.any(String),
          productId: verde.id,
          quantity: 3,
          product: {
            id: verde.id,
            name: "Verde",
            slug: "verde",
            price: 3.33,
            compareAtPrice: null,
            featuredImage: verde.featuredImage,
            heatLevel: 1,
            inventory: 99,
          },
        },
      ],
      itemCount: 2,
      totalQuantity: 5,
      subtotal: 31.97,
    });
  });

  test("adding a product already in the cart merges into its line", async () => {
    const first = await add(habanero.id, 2);
    const second = await add(habanero.id, 5);
    expect(second.body.cartItem).toMatchObject({ id: first.body.cartItem.id, quantity: 7 });
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.itemCount).toBe(1);
  });

  test("the aliases POST /api/cart/items and DELETE /api/cart/items/:itemId behave the same", async () => {
    const added = await t.call("POST", "/api/cart/items", { body: { productId: verde.id, quantity: 1 }, headers: me.headers });
    expect(added.body.cartItem.quantity).toBe(1);
    const removed = await t.call("DELETE", `/api/cart/items/${added.body.cartItem.id}`, { headers: me.headers });
    expect(removed.body).toEqual({ success: true, message: "Item removed from cart" });
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.itemCount).toBe(0);
  });

  test("PUT sets the quantity; DELETE removes the line", async () => {
    const line = (await add(habanero.id, 2)).body.cartItem;
    const put = await t.call("PUT", `/api/cart/${line.id}`, { body: { quantity: 9 }, headers: me.headers });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ success: true, cartItem: { ...line, quantity: 9 } });
    const del = await t.call("DELETE", `/api/cart/${line.id}`, { headers: me.headers });
    expect(del.body).toEqual({ success: true, message: "Item removed from cart" });
    expect((await t.call("DELETE", `/api/cart/${line.id}`, { headers: me.headers })).status).toBe(404);
  });

  test("a line removed with the cookie from a foreign page is refused (CSRF) and stays in the cart; from our own page it is removed", async () => {
    const line = (await add(habanero.id, 2)).body.cartItem;
    const foreign = await t.call("DELETE", `/api/cart/${line.id}`, { headers: { ...me.headers, origin: "https://evil.example" } });
    expect([foreign.status, foreign.body.error]).toEqual([403, "Cross-site request refused"]);
    expect(
      (await t.call("GET", "/api/cart", { headers: me.headers })).body.items.map((item: { id: string; quantity: number }) => [item.id, item.quantity]),
    ).toEqual([[line.id, 2]]);
    const own = await t.call("DELETE", `/api/cart/${line.id}`, { headers: { ...me.headers, origin: "http://localhost:3000" } });
    expect(own.body).toEqual({ success: true, message: "Item removed from cart" });
  });

  test("too little stock is a 400 naming what is available, on add and on update", async () => {
    await add(habanero.id, 10);
    const over = await add(habanero.id, 3);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      error: "Insufficient inventory",
      details: { productId: habanero.id, productName: "Habanero", requested: 13, inCart: 10, available: 12 },
    });
    const line = (await t.call("GET", "/api/cart", { headers: me.headers })).body.items[0];
    const put = await t.call("PUT", `/api/cart/${line.id}`, { body: { quantity: 13 }, headers: me.headers });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({
      error: "Insufficient inventory",
      details: { productId: habanero.id, productName: "Habanero", requested: 13, inCart: 10, available: 12 },
    });
  });

  test("a cart holds at most 50 different products; the 51st is 400, while adding to a line it has still works", async () => {
    const products = Array.from({ length: 49 }, () => aProduct({ inventory: 5 }));
    for (const p of products) await t.deps.repos.products.create(p);
    for (const p of [habanero, ...products]) expect((await add(p.id, 1)).status).toBe(200);
    const fiftyFirst = await add(verde.id, 1);
    expect(fiftyFirst.status).toBe(400);
    expect(fiftyFirst.body).toEqual({ error: "A cart can hold at most 50 different products", details: { maximum: 50 } });
    expect((await add(habanero.id, 1)).status).toBe(200);
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body).toMatchObject({ itemCount: 50, totalQuantity: 51 });
  });

  test("lines off sale take no place the shopper can see: a cart of 50 with 10 off sale takes a new product, the oldest off sale giving way (found by an attack)", async () => {
    const staff = await signedInAs(t, "ADMIN");
    const products = Array.from({ length: 49 }, () => aProduct({ inventory: 5 }));
    for (const p of products) await t.deps.repos.products.create(p);
    for (const p of [habanero, ...products]) expect((await add(p.id, 1)).status).toBe(200);
    const offSale = products.slice(0, 10);
    for (const p of offSale) expect((await t.call("DELETE", `/api/products/${p.id}`, { headers: staff.headers })).status).toBe(200);
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body).toMatchObject({ itemCount: 40 });
    const hiddenOf = async () => (await t.deps.repos.carts.lines(me.id)).filter((l) => !l.product.isActive).map((l) => l.productId);
    const [oldest, ...others] = await hiddenOf();
    expect([oldest, ...others].sort()).toEqual(offSale.map((p) => p.id).sort());

    expect((await add(verde.id, 1)).status).toBe(200);
    expect(await t.deps.repos.carts.lines(me.id)).toHaveLength(50);
    // The oldest line off sale gave way, and the audit log says why; the other nine are kept, to show again if their products return.
    expect(await hiddenOf()).toEqual(others);
    const [removed] = await auditEntries(t.deps.repos.audit, { action: "cart.remove" });
    expect(removed).toMatchObject({ userId: me.id, changes: { productId: oldest, quantity: 1, reason: "off_sale_made_room" } });

    // Forty-one on sale now: nine more fit, each taking an off-sale line's place; then the cart is full.
    const more = Array.from({ length: 10 }, () => aProduct({ inventory: 5 }));
    for (const p of more) await t.deps.repos.products.create(p);
    for (const p of more.slice(0, 9)) expect((await add(p.id, 1)).status).toBe(200);
    expect((await add(more[9]!.id, 1)).body).toEqual({ error: "A cart can hold at most 50 different products", details: { maximum: 50 } });
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body).toMatchObject({ itemCount: 50 });
    expect(await t.deps.repos.carts.lines(me.id)).toHaveLength(50);
  });

  test("a line holds at most 99", async () => {
    await add(verde.id, 90);
    const res = await add(verde.id, 10);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("A cart line can hold at most 99 of a product");
  });

  test.each([
    [{ productId: "not-a-cuid", quantity: 1 }, "productId"],
    [{ productId: "z12345678901234567890123", quantity: 0 }, "quantity"],
    [{ productId: "z12345678901234567890123", quantity: 100 }, "quantity"],
    [{ productId: "z12345678901234567890123", quantity: 1.5 }, "quantity"],
    [{ productId: "z12345678901234567890123", quantity: "2" }, "quantity"],
    [{ quantity: 1 }, "productId"],
  ])("POST %j is 400 naming %s", async (body, field) => {
    const res = await t.call("POST", "/api/cart", { body, headers: me.headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: any) => i.path)).toContain(field);
  });

  test("a product taken off sale leaves the cart and its totals, can still be removed, and comes back with the product", async () => {
    const kept = (await add(habanero.id, 2)).body.cartItem;
    const retiring = (await add(verde.id, 3)).body.cartItem;
    const admin = await signedInAs(t, "ADMIN");
    expect((await t.call("DELETE", `/api/products/${verde.id}`, { headers: admin.headers })).status).toBe(200);

    const cart = (await t.call("GET", "/api/cart", { headers: me.headers })).body;
    expect(cart.items.map((i: any) => i.id)).toEqual([kept.id]);
    expect(cart).toMatchObject({ itemCount: 1, totalQuantity: 2, subtotal: 21.98 });
    expect((await t.call("PUT", `/api/cart/${retiring.id}`, { body: { quantity: 1 }, headers: me.headers })).status).toBe(404);

    expect((await t.call("PUT", `/api/products/${verde.id}`, { body: { isActive: true }, headers: admin.headers })).status).toBe(200);
    const back = (await t.call("GET", "/api/cart", { headers: me.headers })).body;
    expect(back).toMatchObject({ itemCount: 2, totalQuantity: 5, subtotal: 31.97 });
    expect((await t.call("DELETE", `/api/cart/${retiring.id}`, { headers: me.headers })).status).toBe(200);
  });

  test("an unknown or retired product is 404", async () => {
    const retired = aProduct({ isActive: false });
    await t.deps.repos.products.create(retired);
    for (const id of ["z12345678901234567890123", retired.id]) {
      const res = await add(id, 1);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Product not found" });
    }
  });

  test("another user's line is 403 for PUT and DELETE; an unknown or malformed id is 404 or 400", async () => {
    const line = (await add(habanero.id, 1)).body.cartItem;
    const other = await signedInAs(t);
    expect((await t.call("PUT", `/api/cart/${line.id}`, { body: { quantity: 2 }, headers: other.headers })).status).toBe(403);
    expect((await t.call("DELETE", `/api/cart/${line.id}`, { headers: other.headers })).status).toBe(403);
    expect((await t.call("DELETE", `/api/cart/items/${line.id}`, { headers: other.headers })).status).toBe(403);
    expect((await t.call("GET", "/api/cart", { headers: other.headers })).body.itemCount).toBe(0);
    expect((await t.call("PUT", "/api/cart/z12345678901234567890123", { body: { quantity: 2 }, headers: me.headers })).status).toBe(404);
    expect((await t.call("PUT", "/api/cart/nope", { body: { quantity: 2 }, headers: me.headers })).status).toBe(400);
  });

  test("every cart route needs a session", async () => {
    for (const [method, path] of [
      ["GET", "/api/cart"],
      ["POST", "/api/cart"],
      ["PUT", "/api/cart/z12345678901234567890123"],
      ["DELETE", "/api/cart/z12345678901234567890123"],
      ["POST", "/api/cart/items"],
      ["DELETE", "/api/cart/items/z12345678901234567890123"],
    ] as const) {
      const res = await t.call(method, path, { body: method === "GET" || method === "DELETE" ? undefined : { productId: habanero.id, quantity: 1 } });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 401,
        body: { error: "Unauthorized - authentication required" },
      });
    }
  });
});

describe("audit of cart changes", () => {
  test("records the caller's IP from X-Forwarded-For only when TRUST_PROXY is on", async () => {
    await add(habanero.id, 1, { ...me.headers, "x-forwarded-for": "203.0.113.5, 10.0.0.1", "user-agent": "StorefrontWeb/2" } as typeof me.headers);
    const [trusted] = await auditEntries(t.deps.repos.audit, { action: "cart.add" });
    expect(trusted).toMatchObject({ userId: me.id, ipAddress: "203.0.113.5", userAgent: "StorefrontWeb/2" });

    const untrusting = createTestApp(createMemoryDeps(), { trustProxy: false });
    const someone = await signedInAs(untrusting);
    await untrusting.deps.repos.products.create(habanero);
    await untrusting.call("POST", "/api/cart", {
      body: { productId: habanero.id, quantity: 1 },
      headers: { ...someone.headers, "x-forwarded-for": "203.0.113.5" },
    });
    const entries = await auditEntries(untrusting.deps.repos.audit, { action: "cart.add" });
    // Through app.handle there is no socket, so an untrusted header leaves the address unknown.
    expect(entries).toEqual([expect.objectContaining({ userId: someone.id, ipAddress: null })]);
  });

  test("keeps the first 512 characters of a caller's User-Agent, however long the header (found by an attack: 15 KB an entry, kept for good)", async () => {
    const agent = `StorefrontWeb/2 ${"x".repeat(15_000)}`;
    await add(habanero.id, 1, { ...me.headers, "user-agent": agent } as typeof me.headers);
    const [entry] = await auditEntries(t.deps.repos.audit, { action: "cart.add" });
    expect(entry?.userAgent).toBe(agent.slice(0, 512));
  });
});
