import { expect, test } from "bun:test";
import { shopOnPostgres } from "../support/processes.ts";
import { connection } from "../support/raw-http.ts";

// What Bun 1.4.5 does with a request that never finishes (docs/http.md): no answer, the
// connection closed after its idle timeouts. Half a minute of waiting, so it runs with the fault
// suite (npm run test:faults), not in npm test.
const shop = shopOnPostgres({ RATE_LIMIT_MAX: "0" });

test("a request left unfinished gets no answer: closed after about 10 s without its headers, about 30 s of silence in its body", async () => {
  const started = Date.now();
  const waits = [
    "GET /api/health HTTP/1.1\r\nHost: shop\r\n",
    'POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
  ].map(async (request) => {
    const c = connection(shop.port);
    try {
      await c.write(request);
      expect(await c.answer()).toBeNull();
      return Math.round((Date.now() - started) / 1000);
    } finally {
      c.end();
    }
  });
  const [headers, body] = await Promise.all(waits);
  expect(headers).toBeGreaterThanOrEqual(9);
  expect(headers).toBeLessThanOrEqual(16);
  expect(body).toBeGreaterThanOrEqual(29);
  expect(body).toBeLessThanOrEqual(36);
}, 45_000);
