import { beforeEach, describe, expect, test } from "bun:test";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

let t: TestApp;
beforeEach(() => {
  t = createTestApp();
});

const origin = { ipAddress: "198.51.100.7", userAgent: "tests" };
const texas = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };

/** A shopper's day: an add to cart, then an order, an hour apart; and an admin reading the log. */
async function aDay() {
  t.deps.clock.set(new Date("2026-11-22T08:00:00Z"));
  const admin = await signedInAs(t, "ADMIN");
  t.deps.clock.set(new Date("2026-11-22T09:00:00Z"));
  const shopper = await signedInAs(t, "CUSTOMER");
  const sauce = aProduct({ inventory: 5 });
  await t.deps.repos.products.create(sauce);
  t.deps.clock.set(new Date("2026-11-23T10:00:00Z"));
  const line = await t.useCases.addToCart(shopper.id, { productId: sauce.id, quantity: 1 }, origin);
  t.deps.clock.set(new Date("2026-11-23T11:00:00Z"));
  const order = await t.useCases.placeOrder(shopper.id, { cartItemIds: [line.id], shippingAddress: texas }, origin);
  const read = async (query: string) => {
    const res = await t.call("GET", `/api/admin/audit?${query}`, { headers: admin.headers });
    expect(res.status).toBe(200);
    return res.body;
  };
  // Sign-up and sign-in share a second: among entries of one time, the order is by id.
  const actions = async (query: string) => {
    const entries: Array<{ action: string; createdAt: string }> = (await read(query)).data;
    expect(entries.map((e) => e.createdAt)).toEqual(
      entries
        .map((e) => e.createdAt)
        .sort()
        .reverse(),
    );
    return entries
      .map((e) => `${e.createdAt.slice(11, 16)} ${e.action}`)
      .sort()
      .reverse();
  };
  return { admin, shopper, line, order, read, actions };
}

describe("GET /api/admin/audit (settings:read)", () => {
  test("newest first in the envelope, each entry whole", async () => {
    const { shopper, order, read } = await aDay();
    const body = await read(`userId=${shopper.id}`);
    expect(body).toMatchObject({ success: true, error: null, meta: { total: 4, page: 1, limit: 20 } });
    expect(body.data.map((e: { action: string }) => e.action).slice(0, 2)).toEqual(["order.create", "cart.add"]);
    expect(body.data[0]).toEqual({
      id: expect.any(String),
      userId: shopper.id,
      action: "order.create",
      entityType: "order",
      entityId: order.orderId,
      changes: expect.objectContaining({ orderNumber: order.orderNumber }),
      ipAddress: "198.51.100.7",
      userAgent: "tests",
      createdAt: "2026-11-23T11:00:00.000Z",
    });
  });

  test("each filter alone, and combined", async () => {
    const { shopper, order, line, actions } = await aDay();
    expect(await actions("action=cart.add")).toEqual(["10:00 cart.add"]);
    expect(await actions("action=auth.")).toEqual(["09:00 auth.register", "09:00 auth.login", "08:00 auth.register", "08:00 auth.login"]);
    expect(await actions("action=auth")).toEqual([]);
    expect(await actions("entityType=order")).toEqual(["11:00 order.create"]);
    expect(await actions(`entityId=${line.id}`)).toEqual(["10:00 cart.add"]);
    expect(await actions(`userId=${shopper.id}`)).toEqual(["11:00 order.create", "10:00 cart.add", "09:00 auth.register", "09:00 auth.login"]);
    expect(await actions("from=2026-11-23T10:30:00Z")).toEqual(["11:00 order.create"]);
    expect(await actions("from=2026-11-23T10:00:00Z")).toEqual(["11:00 order.create", "10:00 cart.add"]);
    expect(await actions("to=2026-11-23T11:00:00%2B00:00")).toEqual([
      "10:00 cart.add",
      "09:00 auth.register",
      "09:00 auth.login",
      "08:00 auth.register",
      "08:00 auth.login",
    ]);
    expect(await actions("to=2026-11-23")).toEqual(["09:00 auth.register", "09:00 auth.login", "08:00 auth.register", "08:00 auth.login"]);
    expect(await actions("from=2026-11-23&to=2026-11-24")).toEqual(["11:00 order.create", "10:00 cart.add"]);
    expect(await actions(`userId=${shopper.id}&action=order.&entityId=${order.orderId}`)).toEqual(["11:00 order.create"]);
    expect(await actions(`userId=${shopper.id}&action=auth.&to=2026-11-23`)).toEqual(["09:00 auth.register", "09:00 auth.login"]);
    expect(await actions(`userId=${shopper.id}&entityType=user&from=2026-11-23`)).toEqual([]);
  });

  test("a date is a day of the shop's zone (SHOP_TIMEZONE): on Kiritimati (UTC+14) 10:00 UTC on the 23rd is midnight on the 24th", async () => {
    t = createTestApp(createMemoryDeps(), { shopTimeZone: "Pacific/Kiritimati" });
    const { actions } = await aDay();
    expect(await actions("from=2026-11-24")).toEqual(["11:00 order.create", "10:00 cart.add"]);
    expect(await actions("from=2026-11-23&to=2026-11-24")).toEqual([]);
    expect(await actions("from=2026-11-22&to=2026-11-23")).toEqual(["09:00 auth.register", "09:00 auth.login", "08:00 auth.register", "08:00 auth.login"]);
    // A time with its offset is that instant, whatever the zone.
    expect(await actions("from=2026-11-23T10:30:00Z")).toEqual(["11:00 order.create"]);
  });

  test("bad filters are 400 naming the field", async () => {
    const { admin } = await aDay();
    for (const query of [
      "userId=nope",
      "action=Order.Create",
      "action=order..x",
      "from=yesterday",
      "to=2026-13-01",
      "from=0000-01-01",
      // A range run backwards names `to`, "must be after from", as the orders queue's does.
      "to=2026-11-23&from=2026-11-24",
      "limit=101",
    ]) {
      const res = await t.call("GET", `/api/admin/audit?${query}`, { headers: admin.headers });
      expect({ query, status: res.status, path: res.body.details?.issues?.[0]?.path }).toEqual({ query, status: 400, path: query.split("=")[0] });
    }
    const backwards = await t.call("GET", "/api/admin/audit?from=2026-11-24&to=2026-11-23", { headers: admin.headers });
    expect(backwards.body.details.issues).toEqual([{ path: "to", message: "must be after from" }]);
  });
});
