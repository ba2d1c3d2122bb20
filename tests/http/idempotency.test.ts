import { beforeEach, describe, expect, test } from "bun:test";
import { canonicalJson } from "../../src/adapters/http/plumbing/canonical-json.ts";
import { createHousekeeping } from "../../src/application/system/housekeeping.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { PAYMENT_ATTEMPT_ABANDONED_MS } from "../../src/domain/payment.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

const habanero = aProduct({ name: "Habanero", price: 1299, inventory: 10 });
const verde = aProduct({ name: "Verde", price: 899, inventory: 10 });

let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
let lines: [string, string];
beforeEach(async () => {
  t = createTestApp();
  for (const product of [habanero, verde]) await t.deps.repos.products.create(structuredClone(product));
  me = await signedInAs(t);
  const add = async (productId: string) =>
    (await t.call("POST", "/api/cart", { body: { productId, quantity: 1 }, headers: me.headers })).body.cartItem.id as string;
  lines = [await add(habanero.id), await add(verde.id)];
});

/** A checkout sent as exactly these bytes, with the key. */
const checkout = (json: string, key = "order-1") =>
  t.call("POST", "/api/orders", { body: json, headers: { ...me.headers, "content-type": "application/json", "idempotency-key": key } });

describe("Idempotency-Key compares the request's parameters, not its bytes (decisions §15)", () => {
  test("the same JSON with its keys in another order, nested ones too, and other spacing replays the first answer", async () => {
    const first = await checkout(
      `{"cartItemIds":["${lines[0]}","${lines[1]}"],"shippingAddress":{"address1":"1 Main St","city":"Austin","state":"TX","postalCode":"78701"},"notes":"ring twice"}`,
    );
    expect(first.status).toBe(200);
    const again = await checkout(
      `{\n  "notes" : "ring twice",\n  "shippingAddress" : { "postalCode": "78701", "state": "TX", "city": "Austin", "address1": "1 Main St" },\n  "cartItemIds" : [ "${lines[0]}", "${lines[1]}" ]\n}\n`,
    );
    expect([again.status, again.body, again.headers.get("idempotent-replayed")]).toEqual([200, first.body, "true"]);
    expect(t.deps.state.orders.size).toBe(1);
  });

  test("a body that differs in any value is still 422: a nested field, the order of an array, an added field", async () => {
    const address = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
    const first = await checkout(JSON.stringify({ cartItemIds: lines, shippingAddress: address }));
    expect(first.status).toBe(200);
    const variants = [
      { cartItemIds: lines, shippingAddress: { ...address, city: "Dallas" } },
      { cartItemIds: [...lines].reverse(), shippingAddress: address },
      { cartItemIds: lines, shippingAddress: address, notes: "" },
      { cartItemIds: lines, shippingAddress: { ...address, address2: null } },
    ];
    for (const variant of variants) {
      const other = await checkout(JSON.stringify(variant));
      expect([other.status, other.body.error]).toEqual([422, "This Idempotency-Key was used with a different request"]);
    }
    expect(t.deps.state.orders.size).toBe(1);
  });
});

describe("a checkout replayed with its Idempotency-Key answers the order it made (decisions §15)", () => {
  const address = { address1: "1 Main St", city: "Austin", state: "TX", postalCode: "78701" };
  const body = () => JSON.stringify({ cartItemIds: lines, shippingAddress: address });
  // A process that dies at that point: what it waits on never answers, so nothing after it runs.
  const never = () => new Promise<never>(() => {});
  const stock = async () => (await t.deps.repos.products.findById(habanero.id))!.inventory;

  test("after a crash between storing its payment intent and answering: the same order, status and body shape, once; the cart and stock as the order left them", async () => {
    let intentStored = false;
    const dying = createTestApp({
      ...t.deps,
      uow: {
        ...t.deps.uow,
        async write(work) {
          const result = await t.deps.uow.write((db) =>
            work({
              ...db,
              orders: { ...db.orders, attachPaymentIntent: (...args) => ((intentStored = true), db.orders.attachPaymentIntent(...args)) },
            }),
          );
          return intentStored ? never() : result;
        },
      },
    });
    void dying.call("POST", "/api/orders", { body: body(), headers: { ...me.headers, "idempotency-key": "crash-1" } });
    await eventually(() => expect(intentStored).toBe(true));
    const [order] = [...t.deps.state.orders.values()];
    const intent = t.deps.processor.intents.get(order!.stripePaymentIntentId!)!;

    const replay = await checkout(body(), "crash-1");
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(replay.body).toEqual({ clientSecret: intent.clientSecret, orderId: order!.id, orderNumber: order!.orderNumber, amount: order!.total / 100 });
    expect(await checkout(body(), "crash-1")).toMatchObject({ status: 200, body: replay.body });
    expect([t.deps.state.orders.size, await stock(), (await t.call("GET", "/api/cart", { headers: me.headers })).body.itemCount]).toEqual([1, 9, 0]);
  });

  test("after a crash before anything was written (while tax was asked): the key is held 5 minutes, a retry 4 minutes on is 409, one after 5 minutes places the order", async () => {
    let taxAsked = false;
    const dying = createTestApp({ ...t.deps, tax: { calculate: () => ((taxAsked = true), never()) } });
    void dying.call("POST", "/api/orders", { body: body(), headers: { ...me.headers, "idempotency-key": "crash-tax" } });
    await eventually(() => expect(taxAsked).toBe(true));

    t.deps.clock.advance(4 * 60_000);
    const early = await checkout(body(), "crash-tax");
    expect([early.status, early.body.error]).toEqual([409, "A request with this Idempotency-Key is still being processed"]);
    expect(t.deps.state.orders.size).toBe(0);

    t.deps.clock.advance(60_000 + 1);
    const late = await checkout(body(), "crash-tax");
    expect(late.status).toBe(200);
    expect(t.deps.state.orders.size).toBe(1);
    expect(await stock()).toBe(9);
  });

  test("after a crash before its payment intent was stored: 409 to try again shortly (not kept), then, once housekeeping gave it its intent, the order", async () => {
    const dying = createTestApp({ ...t.deps, payments: { ...t.deps.payments, createIntent: never } });
    void dying.call("POST", "/api/orders", { body: body(), headers: { ...me.headers, "idempotency-key": "crash-2" } });
    await eventually(() => expect(t.deps.state.orders.size).toBe(1));
    const [order] = [...t.deps.state.orders.values()];

    const early = await checkout(body(), "crash-2");
    expect([early.status, early.body.error]).toEqual([409, "Your order is still being placed; try again shortly"]);
    t.deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    expect((await createHousekeeping(t.deps, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }).runOnce()).intentsStored).toBe(1);
    const intent = t.deps.processor.intents.get((await t.deps.repos.orders.findById(order!.id))!.stripePaymentIntentId!)!;
    const replay = await checkout(body(), "crash-2");
    expect([replay.status, replay.body]).toEqual([
      200,
      { clientSecret: intent.clientSecret, orderId: order!.id, orderNumber: order!.orderNumber, amount: order!.total / 100 },
    ]);
    expect(t.deps.state.orders.size).toBe(1);
  });

  test("after a crash before its payment intent was stored, then a cancel by its customer: the replay is 409 naming the ended order, every time, never a 500 (found by an attack on crashes)", async () => {
    const dying = createTestApp({ ...t.deps, payments: { ...t.deps.payments, createIntent: never } });
    void dying.call("POST", "/api/orders", { body: body(), headers: { ...me.headers, "idempotency-key": "crash-4" } });
    await eventually(() => expect(t.deps.state.orders.size).toBe(1));
    const [order] = [...t.deps.state.orders.values()];
    expect((await t.call("POST", `/api/orders/${order!.id}/cancel`, { headers: me.headers })).status).toBe(200);

    for (let replay = 0; replay < 2; replay++) {
      const res = await checkout(body(), "crash-4");
      expect([res.status, res.body.error, res.body.details]).toEqual([
        409,
        "This checkout's order ended before it could be paid; please check out again",
        { orderId: order!.id, orderNumber: order!.orderNumber, status: "CANCELLED" },
      ]);
    }
    expect(await stock()).toBe(10);
  });

  test("one housekeeping undid (the processor refused its intent) frees its key: the checkout replayed runs again, on the lines put back", async () => {
    const send = (app: TestApp) =>
      app.call("POST", "/api/cart/checkout", { body: { shippingAddress: address }, headers: { ...me.headers, "idempotency-key": "crash-3" } });
    void send(createTestApp({ ...t.deps, payments: { ...t.deps.payments, createIntent: never } }));
    await eventually(() => expect(t.deps.state.orders.size).toBe(1));
    t.deps.clock.advance(PAYMENT_ATTEMPT_ABANDONED_MS);
    const refusing = {
      ...t.deps,
      payments: { ...t.deps.payments, createIntent: () => Promise.reject(new DomainError("payment.intent_refused", "Payment processing failed")) },
    };
    expect((await createHousekeeping(refusing, { intervalMs: 60_000, orderPaymentTtlMinutes: 60 }).runOnce()).checkoutsUndone).toBe(1);
    const retried = await send(t);
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, null]);
    expect([...t.deps.state.orders.values()].map((o) => o.status)).toEqual(["CANCELLED", "PENDING"]);
    expect(await stock()).toBe(9);
  });

  test("a checkout undone (no payment intent could be made) frees its key: the retry with it places the order", async () => {
    let down = true;
    const flaky = createTestApp({
      ...t.deps,
      payments: { ...t.deps.payments, createIntent: (input) => (down ? Promise.reject(new Error("card network down")) : t.deps.payments.createIntent(input)) },
    });
    const send = () => flaky.call("POST", "/api/orders", { body: body(), headers: { ...me.headers, "idempotency-key": "undone" } });
    expect((await send()).status).toBe(500);
    down = false;
    const retried = await send();
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, null]);
    expect([...t.deps.state.orders.values()].map((o) => o.status)).toEqual(["CANCELLED", "PENDING"]);
  });
});

describe("the canonical form a body's parameters are compared in", () => {
  test("the same whatever the keys' order; different for any other value, type or array order", () => {
    const same = canonicalJson({ b: [1, { d: null, c: "x" }], a: true });
    expect(canonicalJson(JSON.parse('{ "a": true, "b": [1, {"c": "x", "d": null}] }'))).toBe(same);
    for (const other of [
      { a: true, b: ["1", { c: "x", d: null }] },
      { a: true, b: [{ c: "x", d: null }, 1] },
      { a: "true", b: [1, { c: "x", d: null }] },
      { a: true, b: [1, { c: "x" }] },
      { a: true, b: [1, { c: "x", d: null, e: null }] },
      { a: true, b: [1, { c: "X", d: null }] },
      { a: true, b: [1, { "c ": "x", d: null }] },
    ]) {
      expect(canonicalJson(other)).not.toBe(same);
    }
  });
});
