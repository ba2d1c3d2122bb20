import { beforeEach, describe, expect, test } from "bun:test";
import { DomainError } from "../../src/domain/errors.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";
import { auditEntries } from "../support/audit.ts";

const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
const habanero = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
const verde = aProduct({ name: "Verde", price: 899, inventory: 3 });

beforeEach(async () => {
  t = createTestApp();
  for (const p of [habanero, verde]) await t.deps.repos.products.create(structuredClone(p));
  me = await signedInAs(t);
});

const add = async (productId: string, quantity: number, headers = me.headers) =>
  (await t.call("POST", "/api/cart", { body: { productId, quantity }, headers })).body.cartItem.id as string;
const placeOrder = (body: unknown, headers: Record<string, string> = me.headers) => t.call("POST", "/api/orders", { body, headers });

describe("POST /api/orders", () => {
  test("200 { clientSecret, orderId, orderNumber, amount } with the amount in dollars; the lines leave the cart", async () => {
    const lines = [await add(habanero.id, 2), await add(verde.id, 1)];
    const res = await placeOrder({ cartItemIds: lines, shippingAddress: texas, notes: "Gate code 1234" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/),
      orderId: expect.any(String),
      orderNumber: expect.stringMatching(/^SF-\d{8}-[A-Z0-9]{4}$/),
      amount: 44.14,
    });
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.itemCount).toBe(0);
  });

  test.each([
    [{ cartItemIds: [], shippingAddress: texas }, "cartItemIds"],
    [{ cartItemIds: ["not-an-id"], shippingAddress: texas }, "cartItemIds.0"],
    [{ cartItemIds: ["z12345678901234567890123"] }, "shippingAddress"],
    [{ cartItemIds: ["z12345678901234567890123"], shippingAddress: { ...texas, city: "" } }, "shippingAddress.city"],
    [{ cartItemIds: ["z12345678901234567890123"], shippingAddress: { ...texas, country: "USA" } }, "shippingAddress.country"],
    [{ cartItemIds: ["z12345678901234567890123"], shippingAddress: { ...texas, county: "Travis" } }, "shippingAddress.county"],
    [{ cartItemIds: ["z12345678901234567890123"], shippingAddress: texas, coupon: "FREE" }, "coupon"],
  ])("%j is 400 naming %s", async (body, path) => {
    const res = await placeOrder(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid request");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  test("a US address with a state that is no state code is 400 naming it", async () => {
    const res = await placeOrder({ cartItemIds: [await add(habanero.id, 1)], shippingAddress: { ...texas, state: "Texas" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "shippingAddress.state", message: "must be a US state code (two letters, e.g. TX)" }]);
  });

  test("a country ISO 3166-1 does not assign is 400 naming it, for the billing address too; the cart is untouched", async () => {
    const line = await add(habanero.id, 1);
    const abroad = { address1: "1 Nowhere Rd", city: "Atlantis", state: "Deep", postalCode: "00000" };
    for (const [body, path] of [
      [{ cartItemIds: [line], shippingAddress: { ...abroad, country: "XX" } }, "shippingAddress.country"],
      [{ cartItemIds: [line], shippingAddress: texas, billingAddress: { ...abroad, country: "UK" } }, "billingAddress.country"],
    ] as const) {
      const res = await placeOrder(body);
      expect([res.status, res.body.details.issues]).toEqual([400, [{ path, message: "must be an ISO 3166-1 alpha-2 country code (e.g. US, CA)" }]]);
    }
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.items).toHaveLength(1);
  });

  test("an address line that breaks into several lines, or names nothing, is 400 naming it; the label stays one field a line", async () => {
    const line = await add(habanero.id, 1);
    const forged = await placeOrder({ cartItemIds: [line], shippingAddress: { ...texas, address1: "1 Main St\nHouston, TX 77001", city: "\u200b" } });
    expect(forged.status).toBe(400);
    expect(forged.body.details.issues).toEqual([
      { path: "shippingAddress.address1", message: "must be one line" },
      { path: "shippingAddress.city", message: "must contain a letter or a digit" },
    ]);
    const placed = await placeOrder({ cartItemIds: [line], shippingAddress: texas, billingAddress: null, notes: null });
    expect(placed.status).toBe(200);
    const order = (await t.call("GET", `/api/orders/${placed.body.orderId}`, { headers: me.headers })).body;
    expect([order.shippingMethod, order.billingAddress.city, order.customerNotes]).toEqual(["1 Main St\nAustin, TX 78701\nUS", "Austin", null]);
  });

  test("lines not in the caller's cart are 400 Cart items not found; too little stock is 400 naming the product", async () => {
    const other = await signedInAs(t);
    const theirs = await add(habanero.id, 1, other.headers);
    const notFound = await placeOrder({ cartItemIds: [theirs], shippingAddress: texas });
    expect(notFound.status).toBe(400);
    expect(notFound.body).toEqual({ error: "Cart items not found", details: { cartItemIds: [theirs] } });

    const line = await add(verde.id, 3);
    await t.deps.repos.products.update(verde.id, { inventory: 1, updatedAt: new Date() });
    const short = await placeOrder({ cartItemIds: [line], shippingAddress: texas });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ error: "Insufficient inventory", details: { productId: verde.id, productName: "Verde", requested: 3, available: 1 } });
  });

  test("without a session it is 401", async () => {
    expect((await placeOrder({ cartItemIds: ["z12345678901234567890123"], shippingAddress: texas }, {})).status).toBe(401);
  });

  test("a tax service that fails is a 500 with nothing changed; a payment intent that cannot be made is 500 Order creation failed, the order undone", async () => {
    const deps = createMemoryDeps();
    const failing = createTestApp({ ...deps, tax: { calculate: () => Promise.reject(new Error("down")) } });
    await failing.deps.repos.products.create(structuredClone(habanero));
    const shopper = await signedInAs(failing);
    const line = (await failing.call("POST", "/api/cart", { body: { productId: habanero.id, quantity: 1 }, headers: shopper.headers })).body.cartItem.id;
    const taxed = await failing.call("POST", "/api/orders", { body: { cartItemIds: [line], shippingAddress: texas }, headers: shopper.headers });
    expect(taxed.status).toBe(500);
    expect(taxed.body).toEqual({ error: "Tax could not be calculated; no order was made" });
    expect(deps.state.orders.size).toBe(0);

    const noIntent = createTestApp({ ...createMemoryDeps(), payments: { ...deps.payments, createIntent: () => Promise.reject(new Error("down")) } });
    await noIntent.deps.repos.products.create(structuredClone(habanero));
    const buyer = await signedInAs(noIntent);
    const cartLine = (await noIntent.call("POST", "/api/cart", { body: { productId: habanero.id, quantity: 2 }, headers: buyer.headers })).body.cartItem.id;
    const res = await noIntent.call("POST", "/api/orders", { body: { cartItemIds: [cartLine], shippingAddress: texas }, headers: buyer.headers });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Order creation failed" });
    expect((await noIntent.call("GET", "/api/cart", { headers: buyer.headers })).body.totalQuantity).toBe(2);
    expect((await noIntent.call("GET", `/api/products/${habanero.id}`)).body.data.inventory).toBe(10);
  });
});

describe("POST /api/cart/checkout", () => {
  test("without ids orders the whole visible cart; with ids, those lines", async () => {
    await add(habanero.id, 1);
    const kept = await add(verde.id, 1);
    const some = await t.call("POST", "/api/cart/checkout", { body: { cartItemIds: [kept], shippingAddress: texas }, headers: me.headers });
    expect(some.status).toBe(200);
    const all = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: me.headers });
    expect(all.status).toBe(200);
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.itemCount).toBe(0);
    const empty = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: me.headers });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe("Your cart is empty");
  });
});

describe("unpaid orders cannot hoard stock (decisions §15)", () => {
  async function unpaidOrders(count: number) {
    const placed: Array<{ id: string; orderNumber: string }> = [];
    for (let i = 0; i < count; i++) {
      const { body } = await placeOrder({ cartItemIds: [await add(habanero.id, 1)], shippingAddress: texas });
      placed.push({ id: body.orderId, orderNumber: body.orderNumber });
      t.deps.clock.advance(1_000);
    }
    return placed;
  }

  test("with 3 unpaid orders both checkout routes are 409 'Pay or cancel your unpaid orders first', naming the limit and the orders; nothing is taken", async () => {
    const unpaid = await unpaidOrders(3);
    const line = await add(verde.id, 2);
    const refusal = { error: "Pay or cancel your unpaid orders first", details: { limit: 3, unpaidOrders: unpaid } };
    const viaOrders = await placeOrder({ cartItemIds: [line], shippingAddress: texas });
    expect([viaOrders.status, viaOrders.body]).toEqual([409, refusal]);
    const viaCheckout = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: texas }, headers: me.headers });
    expect([viaCheckout.status, viaCheckout.body]).toEqual([409, refusal]);
    expect((await t.call("GET", "/api/cart", { headers: me.headers })).body.items.map((i: { id: string }) => i.id)).toEqual([line]);
    expect((await t.call("GET", `/api/products/${verde.id}`)).body.data.inventory).toBe(3);
  });

  test("the refusal is not kept for an Idempotency-Key: once an order is paid, the same request goes through", async () => {
    const [first] = await unpaidOrders(3);
    const request = { body: { shippingAddress: texas }, headers: { ...me.headers, "idempotency-key": "checkout-after-paying" } };
    await add(verde.id, 1);
    expect((await t.call("POST", "/api/cart/checkout", request)).status).toBe(409);
    const paid = await t.call("POST", "/api/payment", { body: { orderId: first!.id, paymentMethodId: "pm_card_visa" }, headers: me.headers });
    expect(paid.body.success).toBe(true);
    const retried = await t.call("POST", "/api/cart/checkout", request);
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, null]);
  });
});

describe("reading orders", () => {
  async function threeOrders() {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await placeOrder({ cartItemIds: [await add(habanero.id, 1)], shippingAddress: texas })).body.orderId);
      t.deps.clock.advance(1_000);
    }
    return ids;
  }

  test("GET /api/orders is a bare array of the caller's orders, newest first, with the total in X-Total-Count", async () => {
    const ids = await threeOrders();
    const other = await signedInAs(t);
    await placeOrder({ cartItemIds: [await add(verde.id, 1, other.headers)], shippingAddress: texas }, other.headers);
    const res = await t.call("GET", "/api/orders", { headers: me.headers });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((o: { id: string }) => o.id)).toEqual([...ids].reverse());
    expect(res.headers.get("x-total-count")).toBe("3");
    expect(res.body[0]).toMatchObject({
      status: "PENDING",
      paymentStatus: "PENDING",
      subtotal: 12.99,
      shippingCost: 6.99,
      tax: 0.81,
      discountAmount: 0,
      total: 20.79,
    });
  });

  test("skip and take page, sortOrder turns it round, status and paymentStatus filter (all means no filter)", async () => {
    const ids = await threeOrders();
    const page = await t.call("GET", "/api/orders?skip=1&take=1&sortOrder=asc", { headers: me.headers });
    expect([page.body.map((o: { id: string }) => o.id), page.headers.get("x-total-count")]).toEqual([[ids[1]], "3"]);
    expect((await t.call("GET", "/api/orders?status=CANCELLED", { headers: me.headers })).body).toEqual([]);
    expect((await t.call("GET", "/api/orders?status=all&paymentStatus=PENDING", { headers: me.headers })).body).toHaveLength(3);
  });

  test.each(["take=0", "take=101", "skip=-1", "status=LOST", "paymentStatus=paid", "sortOrder=up", "take=1e1"])("GET /api/orders?%s is 400", async (query) => {
    expect((await t.call("GET", `/api/orders?${query}`, { headers: me.headers })).status).toBe(400);
  });

  test("GET /api/orders/:id: the owner sees every field, items with their product; another user gets 403; unknown 404; malformed 400", async () => {
    const [id] = await threeOrders();
    const res = await t.call("GET", `/api/orders/${id}`, { headers: me.headers });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      shippingMethod: "1 Main St\nAustin, TX 78701\nUS",
      shippingAddress: { ...texas, address2: null, country: "US" },
      billingAddress: { ...texas, address2: null, country: "US" },
      stripePaymentIntentId: expect.stringMatching(/^pi_/),
      trackingNumber: null,
      items: [
        {
          productId: habanero.id,
          productName: "Habanero",
          productSku: habanero.sku,
          quantity: 1,
          unitPrice: 12.99,
          totalPrice: 12.99,
          product: { id: habanero.id, slug: habanero.slug, heatLevel: habanero.heatLevel },
        },
      ],
    });
    const other = await signedInAs(t);
    expect((await t.call("GET", `/api/orders/${id}`, { headers: other.headers })).status).toBe(403);
    expect((await t.call("GET", "/api/orders/z12345678901234567890123", { headers: me.headers })).status).toBe(404);
    const malformed = await t.call("GET", "/api/orders/nope", { headers: me.headers });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: "Invalid request", details: { issues: [{ path: "id", message: "must be an order id" }] } });
  });
});

describe("POST /api/orders/:id/cancel (decisions §15)", () => {
  const cancel = (id: string, headers: Record<string, string> = me.headers, body?: unknown) => t.call("POST", `/api/orders/${id}/cancel`, { headers, body });
  const anOrder = async () => (await placeOrder({ cartItemIds: [await add(habanero.id, 2)], shippingAddress: texas })).body.orderId as string;
  const stock = async () => (await t.call("GET", `/api/products/${habanero.id}`)).body.data.inventory;

  test("the owner cancels an unpaid order: 200 with the order as GET shows it, CANCELLED, its stock back, its intent stopped, audited", async () => {
    const id = await anOrder();
    expect(await stock()).toBe(8);
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await t.call("GET", `/api/orders/${id}`, { headers: me.headers })).body);
    expect(res.body).toMatchObject({ id, status: "CANCELLED", paymentStatus: "PENDING", items: [{ productId: habanero.id, quantity: 2 }] });
    expect(await stock()).toBe(10);
    expect(t.deps.processor.intents.get(res.body.stripePaymentIntentId)?.status).toBe("canceled");
    expect(await auditEntries(t.deps.repos.audit, { action: "order.cancel" })).toEqual([
      expect.objectContaining({ userId: me.id, entityType: "order", entityId: id, changes: expect.objectContaining({ from: "PENDING", to: "CANCELLED" }) }),
    ]);
  });

  test("another user's order is 403, an unknown one 404, a malformed id 400, a body 400; without a session 401; nothing changes", async () => {
    const id = await anOrder();
    const other = await signedInAs(t);
    expect([(await cancel(id, other.headers)).status, (await cancel(id, other.headers)).body]).toEqual([403, { error: "This order belongs to another user" }]);
    expect([(await cancel("z12345678901234567890123")).status, (await cancel("z12345678901234567890123")).body]).toEqual([404, { error: "Order not found" }]);
    const malformed = await cancel("nope");
    expect([malformed.status, malformed.body]).toEqual([
      400,
      { error: "Invalid request", details: { issues: [{ path: "id", message: "must be an order id" }] } },
    ]);
    const withBody = await cancel(id, me.headers, { reason: "changed my mind" });
    expect([withBody.status, withBody.body.details.issues]).toEqual([400, [{ path: "reason", message: "is not a known field" }]]);
    expect((await cancel(id, {})).status).toBe(401);
    expect((await t.call("GET", `/api/orders/${id}`, { headers: me.headers })).body.status).toBe("PENDING");
    expect(await stock()).toBe(8);
  });

  test("a paid order is 400 'Order has already been paid'; a cancelled one, cancelled again, is 400 and restocks nothing", async () => {
    const paid = await anOrder();
    expect((await t.call("POST", "/api/payment", { body: { orderId: paid, paymentMethodId: "pm_card_visa" }, headers: me.headers })).body.success).toBe(true);
    const refused = await cancel(paid);
    expect([refused.status, refused.body]).toEqual([400, { error: "Order has already been paid" }]);

    const id = await anOrder();
    expect((await cancel(id)).status).toBe(200);
    const again = await cancel(id);
    expect([again.status, again.body]).toEqual([
      400,
      { error: "Order cannot be cancelled in its current status", details: { status: "CANCELLED", paymentStatus: "PENDING" } },
    ]);
    expect(await stock()).toBe(8);
    expect(await auditEntries(t.deps.repos.audit, { action: "order.cancel" })).toHaveLength(1);
  });

  test("as other changes made with the cookie: refused from a foreign Origin (403), allowed from ours or with a Bearer token", async () => {
    const id = await anOrder();
    const foreign = await cancel(id, { ...me.headers, origin: "https://evil.example" });
    expect([foreign.status, foreign.body.error]).toEqual([403, "Cross-site request refused"]);
    expect((await cancel(id, { ...me.headers, origin: "http://localhost:3000" })).status).toBe(200);
    expect((await cancel(await anOrder(), { authorization: `Bearer ${me.token}`, origin: "https://evil.example" })).status).toBe(200);
  });

  test("rate-limited like the other routes: the limit headers, then 429", async () => {
    const limited = createTestApp(createMemoryDeps(), { rateLimit: { max: 2, windowSeconds: 900 } });
    const shopper = await signedInAs(limited);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await limited.call("POST", "/api/orders/z12345678901234567890123/cancel", { headers: shopper.headers }));
    expect(answers.map((a) => [a.status, a.body.error, a.headers.get("x-ratelimit-limit")])).toEqual([
      [404, "Order not found", "2"],
      [404, "Order not found", "2"],
      [429, "Rate limit exceeded. Please try again later.", "2"],
    ]);
  });
});

describe("PUT /api/orders/:id/status", () => {
  test("staff move orders by the table; the answer is the order; a bad move names the allowed ones; SHIPPED needs a tracking number", async () => {
    const id = (await placeOrder({ cartItemIds: [await add(habanero.id, 2)], shippingAddress: texas })).body.orderId;
    const staff = await signedInAs(t, "STAFF");
    const move = (body: unknown) => t.call("PUT", `/api/orders/${id}/status`, { body, headers: staff.headers });
    expect((await move({ status: "SHIPPED", trackingNumber: "1Z" })).body).toEqual({
      error: "An order cannot move from PENDING to SHIPPED; allowed: CONFIRMED, CANCELLED",
      details: { from: "PENDING", to: "SHIPPED", allowed: ["CONFIRMED", "CANCELLED"] },
    });
    expect((await move({ status: "CONFIRMED" })).body).toMatchObject({ id, status: "CONFIRMED" });
    expect((await move({ status: "PROCESSING" })).status).toBe(200);
    const untracked = await move({ status: "SHIPPED" });
    expect([untracked.status, untracked.body.error]).toEqual([400, "A tracking number is needed to ship an order"]);
    expect((await move({ status: "SHIPPED", trackingNumber: " 1Z999AA10123456784 " })).body).toMatchObject({
      status: "SHIPPED",
      trackingNumber: "1Z999AA10123456784",
    });
    expect((await move({ status: "DELIVERED", carrier: "UPS" })).status).toBe(400);
    const overwrite = await move({ status: "DELIVERED", trackingNumber: "CHANGED" });
    expect([overwrite.status, overwrite.body.error]).toEqual([400, "A tracking number is set only when an order ships"]);
    expect((await move({ status: "ARRIVED" })).status).toBe(400);
  });

  test("a refund the processor refuses after the move: 200 with the order as moved, its payment still PAID; the refund is due, with the error, for housekeeping to retry", async () => {
    const deps = createMemoryDeps();
    const refusing = createTestApp({
      ...deps,
      payments: {
        ...deps.payments,
        refund: () => Promise.reject(new DomainError("payment.processor_failed", "Payment processing failed", { reason: "no such payment intent: pi_123" })),
      },
    });
    await refusing.deps.repos.products.create(structuredClone(habanero));
    const shopper = await signedInAs(refusing);
    const line = (await refusing.call("POST", "/api/cart", { body: { productId: habanero.id, quantity: 1 }, headers: shopper.headers })).body.cartItem.id;
    const { orderId } = (await refusing.call("POST", "/api/orders", { body: { cartItemIds: [line], shippingAddress: texas }, headers: shopper.headers })).body;
    await deps.repos.orders.update(orderId, { status: "CONFIRMED", paymentStatus: "PAID", updatedAt: new Date() });
    const admin = await signedInAs(refusing, "ADMIN");
    const res = await refusing.call("PUT", `/api/orders/${orderId}/status`, { body: { status: "CANCELLED" }, headers: admin.headers });
    expect([res.status, res.body.status, res.body.paymentStatus]).toEqual([200, "CANCELLED", "PAID"]);
    expect((await deps.repos.orders.findById(orderId))?.status).toBe("CANCELLED");
    expect(await deps.repos.refunds.listDue()).toEqual([
      expect.objectContaining({ orderId, lastError: "Payment processing failed: no such payment intent: pi_123" }),
    ]);
    expect((await refusing.call("GET", `/api/products/${habanero.id}`)).body.data.inventory).toBe(habanero.inventory);
  });

  test("cancelling restores stock; a customer may not move orders, not even their own", async () => {
    const id = (await placeOrder({ cartItemIds: [await add(habanero.id, 2)], shippingAddress: texas })).body.orderId;
    expect((await t.call("PUT", `/api/orders/${id}/status`, { body: { status: "CANCELLED" }, headers: me.headers })).status).toBe(403);
    const staff = await signedInAs(t, "STAFF");
    expect((await t.call("PUT", `/api/orders/${id}/status`, { body: { status: "CANCELLED" }, headers: staff.headers })).body.status).toBe("CANCELLED");
    expect((await t.call("GET", `/api/products/${habanero.id}`)).body.data.inventory).toBe(10);
  });
});
