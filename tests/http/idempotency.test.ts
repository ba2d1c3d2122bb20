import { beforeEach, describe, expect, test } from "bun:test";
import { canonicalJson } from "../../src/adapters/http/plumbing/canonical-json.ts";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
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
