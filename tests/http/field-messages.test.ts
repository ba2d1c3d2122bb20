import { beforeEach, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

// What a form shows beside a field is the API's message for it: in words a shopper reads, not a
// validator's ("Too small: expected string to have >=1 characters", a review found on checkout).
let t: TestApp;
let me: Awaited<ReturnType<typeof signedInAs>>;
const sauce = aProduct({ price: 1299, inventory: 10 });
beforeEach(async () => {
  t = createTestApp();
  await t.deps.repos.products.create(structuredClone(sauce));
  me = await signedInAs(t);
});

const messages = (body: { details: { issues: Array<{ path: string; message: string }> } }) =>
  Object.fromEntries(body.details.issues.map((issue) => [issue.path, issue.message]));

test("an empty checkout form: each address field 'is required'; a note too long says its limit", async () => {
  await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: me.headers });
  const empty = { address1: " ", city: "", state: "", postalCode: "" };
  const res = await t.call("POST", "/api/cart/checkout", { body: { shippingAddress: empty, notes: "x".repeat(1001) }, headers: me.headers });
  expect(res.status).toBe(400);
  expect(messages(res.body)).toEqual({
    "shippingAddress.address1": "is required",
    "shippingAddress.city": "is required",
    "shippingAddress.state": "is required",
    "shippingAddress.postalCode": "is required",
    notes: "must be at most 1000 characters",
  });
});

test("numbers and types: a quantity of 0, of 100, of text, and none at all", async () => {
  const add = async (body: object) => messages((await t.call("POST", "/api/cart", { body: { productId: sauce.id, ...body }, headers: me.headers })).body);
  expect(await add({ quantity: 0 })).toEqual({ quantity: "must be at least 1" });
  expect(await add({ quantity: 100 })).toEqual({ quantity: "must be at most 99" });
  expect(await add({ quantity: "two" })).toEqual({ quantity: "must be a number" });
  expect(messages((await t.call("POST", "/api/cart", { body: { quantity: 1 }, headers: me.headers })).body)).toEqual({ productId: "is required" });
});

test("a number past every bound is told the field's own bound, once: not also a whole number's safe range (found by trying it)", async () => {
  const issues = async (res: { body: { details: { issues: unknown[] } } }) => res.body.details.issues;
  const huge = await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1e20 }, headers: me.headers });
  expect(await issues(huge)).toEqual([{ path: "quantity", message: "must be at most 99" }]);
  const page = await t.call("GET", "/api/products?limit=99999999999999999999");
  expect(await issues(page)).toEqual([{ path: "limit", message: "must be at most 100" }]);
  const below = await t.call("GET", "/api/products?page=-99999999999999999999");
  expect(await issues(below)).toEqual([{ path: "page", message: "must be at least 1" }]);
});
