import { afterAll, expect, test } from "bun:test";
import { createJsonLogger } from "../../src/adapters/log.ts";
import { serveMetrics } from "../../src/adapters/metrics/server.ts";
import { connection } from "../support/raw-http.ts";

const lines: string[] = [];
const server = serveMetrics(
  { scrape: async () => ({ text: "# TYPE storefront_up gauge\nstorefront_up 1\n", contentType: "text/plain; version=0.0.4; charset=utf-8" }) },
  0,
  createJsonLogger("info", (line) => void lines.push(line)),
);
afterAll(() => server.stop(true));

const ask = async (head: string) => {
  const socket = connection(server.port!);
  try {
    await socket.write(`${head}\r\n\r\n`);
    return await socket.answer();
  } finally {
    socket.end();
  }
};

test("a scrape without a Host (HTTP/1.0) or with one no URL can hold is answered as any other, not with a 500 (found by an attack)", async () => {
  for (const head of ["GET /metrics HTTP/1.0", "GET /metrics HTTP/1.1\r\nHost: a b c", "GET /metrics HTTP/1.1\r\nHost: x"]) {
    const answer = await ask(head);
    expect({ head, status: answer?.status, body: answer?.body }).toEqual({ head, status: 200, body: "# TYPE storefront_up gauge\nstorefront_up 1\n" });
  }
  expect((await ask("GET /elsewhere HTTP/1.0"))?.status).toBe(404);
  expect(lines).toEqual([]);
});
