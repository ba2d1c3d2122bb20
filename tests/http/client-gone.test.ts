import { afterAll, beforeAll, expect, test } from "bun:test";
import { signedInAs } from "../support/accounts.ts";
import { aProduct } from "../support/builders.ts";
import { type TestApp, createTestApp } from "../support/http.ts";

// A request whose client is gone before it is served is not run: no one would hear how it went, it
// has no address to be counted or audited under, and a client told 400 by Bun (over a chunked body's
// trailer: tests/process/early-refusals.test.ts) would try again (found by an attack).

let t: TestApp;
let shopper: Awaited<ReturnType<typeof signedInAs>>;
let lineId: string;
beforeAll(async () => {
  t = createTestApp();
  const sauce = aProduct({ price: 899, inventory: 5 });
  await t.deps.repos.products.create(sauce);
  shopper = await signedInAs(t);
  lineId = (await t.call("POST", "/api/cart", { body: { productId: sauce.id, quantity: 1 }, headers: shopper.headers })).body.cartItem.id;
});
afterAll(() => t.app.stop(true));

const removal = (signal?: AbortSignal) =>
  new Request(`http://localhost/api/cart/items/${lineId}`, { method: "DELETE", headers: shopper.headers, ...(signal ? { signal } : {}) });
const lines = async () => (await t.useCases.getCart(shopper.id)).lines.length;

test("a request whose client hung up before it was served is 400 and not run: the line stays in the cart", async () => {
  const answer = await t.app.handle(removal(AbortSignal.abort()));
  expect([answer.status, await answer.json()]).toEqual([400, { error: "The client closed the connection before the request was served" }]);
  expect(await lines()).toBe(1);
});

test("served by a listening server, a request with no client address, as Bun gives one whose connection was reset before it was read, is not run", async () => {
  // What Bun gives for a request whose connection is gone: no address, as for one that never came over a socket.
  t.app.listen({ port: 0, hostname: "127.0.0.1", reusePort: false });
  const answer = await t.app.handle(removal());
  expect([answer.status, await answer.json()]).toEqual([400, { error: "The client closed the connection before the request was served" }]);
  expect(await lines()).toBe(1);
});
