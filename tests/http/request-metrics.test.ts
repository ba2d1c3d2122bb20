import { expect, test } from "bun:test";
import { aProduct } from "../support/builders.ts";
import { eventually } from "../support/eventually.ts";
import { createTestApp } from "../support/http.ts";

function observedApp(options: Parameters<typeof createTestApp>[1] = {}) {
  const seen: Array<{ method: string; route: string; status: number; seconds: number }> = [];
  const t = createTestApp(undefined, { ...options, observeRequest: (method, route, status, seconds) => void seen.push({ method, route, status, seconds }) });
  return { t, seen, labels: () => seen.map(({ method, route, status }) => `${method} ${route} ${status}`) };
}

test("every answered request is told by route pattern, never by path: an id, a slug and an unknown id are one route; no route is `unmatched`", async () => {
  const { t, seen, labels } = observedApp();
  const product = aProduct();
  await t.deps.repos.products.create(product);
  for (const path of [`/api/products/${product.id}`, `/api/products/${product.slug}`, "/api/products/z12345678901234567890123", "/api/nowhere/7"]) {
    await t.call("GET", path);
  }
  await t.call("DELETE", "/api/health");
  await eventually(() => expect(seen).toHaveLength(5));
  expect(labels()).toEqual([
    "GET /api/products/:id 200",
    "GET /api/products/:id 200",
    "GET /api/products/:id 404",
    "GET unmatched 404",
    "DELETE unmatched 405",
  ]);
  for (const { seconds } of seen) expect(seconds).toBeWithin(0, 5);
});

test("a request refused before routing (a 429) carries the pattern it would have reached", async () => {
  const { t, seen, labels } = observedApp({ rateLimit: { max: 1, windowSeconds: 900 } });
  await t.call("GET", "/api/locations");
  await t.call("GET", "/api/locations");
  await eventually(() => expect(seen).toHaveLength(2));
  expect(labels()).toEqual(["GET /api/locations 200", "GET /api/locations 429"]);
});
