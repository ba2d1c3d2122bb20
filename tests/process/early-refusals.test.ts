import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type Answer, ask as askOn, connection as connectionTo } from "../support/raw-http.ts";
import { shopOnPostgres } from "../support/processes.ts";

// Decisions §15: every answer carries X-Request-Id and X-API-Version, the ones made before the app
// sees the request included where the runtime (Bun 1.4.5) lets the app make them. Raw sockets, as
// only they can send what no HTTP client would: what the app answers, and what Bun answers bare.
const shop = shopOnPostgres({ RATE_LIMIT_MAX: "0" });

const connection = () => connectionTo(shop.port);
const ask = (request: string | Uint8Array) => askOn(shop.port, request);

const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${shop.server.pid}/status`, "utf8"))?.[1]) / 1024;
const carriesTheShopsHeaders = (answer: Answer | null) => ({
  requestId: Boolean(answer?.headers["x-request-id"]),
  apiVersion: answer?.headers["x-api-version"],
});

describe("a body too large is the app's 413, with its headers, whatever its size", () => {
  // 2^59 - 1, the largest length Bun's parser takes.
  test.each([["2000000"], ["200000000"], ["9007199254740993"], ["576460752303423487"]])(
    "a declared length of %s bytes is refused before any of it is sent",
    async (length) => {
      const answer = await ask(`POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
      expect(answer?.status).toBe(413);
      expect(carriesTheShopsHeaders(answer)).toEqual({ requestId: true, apiVersion: "1.0" });
      expect(JSON.parse(answer!.body)).toEqual({ error: "Request body too large", details: { limitBytes: 1048576 } });
    },
    10_000,
  );

  test("a chunked body streamed far past every limit is refused once it passes 1 MB, and what follows is read and dropped, not kept", async () => {
    const c = connection();
    try {
      await c.write("POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
      const mb = Buffer.alloc(1024 * 1024, 0x20);
      const chunk = Buffer.concat([Buffer.from(`${mb.length.toString(16)}\r\n`), mb, Buffer.from("\r\n")]);
      const before = residentMb();
      let peak = before;
      // 96 MB: past the 64 MB at which Bun itself answered before, streamed while the answer is awaited.
      for (let sent = 0; sent < 96; sent++) {
        await c.write(chunk);
        if (sent % 8 === 0) peak = Math.max(peak, residentMb());
      }
      await c.write("0\r\n\r\n");
      expect(c.socket.bytesWritten).toBeGreaterThan(96 * 1024 * 1024);
      const answer = await c.answer();
      expect(answer?.status).toBe(413);
      expect(carriesTheShopsHeaders(answer)).toEqual({ requestId: true, apiVersion: "1.0" });
      peak = Math.max(peak, residentMb());
      expect(peak - before).toBeLessThan(40);
      // The connection was read to the end of that body, so it serves the next request.
      await c.write("GET /api/health HTTP/1.1\r\nHost: shop\r\n\r\n");
      expect((await c.answer())?.status).toBe(200);
    } finally {
      c.end();
    }
  }, 30_000);
});

describe('a Content-Length sent twice with one value (Bun passes it on as "N, N") is that length', () => {
  test("past the limit: refused before any of the body is sent, as a single one is", async () => {
    const answer = await ask(
      "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nContent-Length: 2000000\r\n\r\n",
    );
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer!.body)).toEqual({ error: "Request body too large", details: { limitBytes: 1048576 } });
  }, 10_000);

  test("within it: the body is read and answered as any other", async () => {
    const body = '{"email":"not an e-mail"}';
    const answer = await ask(
      `POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body).details.issues.map((issue: { path: string }) => issue.path)).toEqual(expect.arrayContaining(["email", "password"]));
  }, 10_000);

  test("on a GET: a GET with a body, refused", async () => {
    const answer = await ask("GET /api/health HTTP/1.1\r\nHost: shop\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body).error).toBe("A GET request takes no body");
  }, 10_000);
});

describe("requests without a host of their own, once a 500, are answered as any other", () => {
  test("HTTP/1.0 without a Host header (allowed there): answered as any other", async () => {
    const answer = await ask("GET /api/health HTTP/1.0\r\n\r\n");
    expect([answer?.status, answer?.body]).toEqual([200, '{"status":"ok"}']);
    expect(carriesTheShopsHeaders(answer)).toEqual({ requestId: true, apiVersion: "1.0" });
  }, 10_000);

  test("a bare path that starts with // names no host: answered as the same path with a Host is, not as the path after it (found by an attack)", async () => {
    const [bare, hosted] = [
      await ask("GET //evil.example/api/health HTTP/1.0\r\n\r\n"),
      await ask("GET //evil.example/api/health HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n"),
    ];
    expect(bare?.body).not.toBe('{"status":"ok"}');
    expect([bare?.status, bare?.headers["content-type"], bare?.body]).toEqual([hosted?.status, hosted?.headers["content-type"], hosted?.body]);
  }, 10_000);

  test("a Host header that is no host (Bun passes the request on with a bare path): answered as any other", async () => {
    const answer = await ask("GET /api/health HTTP/1.1\r\nHost: a b c\r\n\r\n");
    expect([answer?.status, answer?.body]).toEqual([200, '{"status":"ok"}']);
    expect(carriesTheShopsHeaders(answer)).toEqual({ requestId: true, apiVersion: "1.0" });
  }, 10_000);
});

describe("what Bun answers itself, bare, before the app can see it (documented in docs/http.md)", () => {
  const big = "a".repeat(17 * 1024);
  test.each([
    [431, "a header over 16 KiB", `GET /api/health HTTP/1.1\r\nHost: shop\r\nX-Big: ${big}\r\n\r\n`],
    [431, "a target over 16 KiB", `GET /api/health?q=${big} HTTP/1.1\r\nHost: shop\r\n\r\n`],
    [431, "headers over 16 KiB in all", `GET /api/health HTTP/1.1\r\nHost: shop\r\n${"X-Many: 1234567890\r\n".repeat(1000)}\r\n`],
    [400, "a request line that is none", "GARBAGE\r\n\r\n"],
    [400, "a target that is not a path", "GET api/health HTTP/1.1\r\nHost: shop\r\n\r\n"],
    [400, "the target *", "OPTIONS * HTTP/1.1\r\nHost: shop\r\n\r\n"],
    [400, "an HTTP/1.1 request without Host", "GET /api/health HTTP/1.1\r\n\r\n"],
    [400, "a header name with a space", "GET /api/health HTTP/1.1\r\nHost: shop\r\nBad Name: 1\r\n\r\n"],
    [400, "a space before a header's colon", "GET /api/health HTTP/1.1\r\nHost: shop\r\nX-A : 1\r\n\r\n"],
    [400, "a header folded onto a second line", "GET /api/health HTTP/1.1\r\nHost: shop\r\nX-A: 1\r\n 2\r\n\r\n"],
    [400, "a NUL in a header", "GET /api/health HTTP/1.1\r\nHost: shop\r\nX-A: 1\u00002\r\n\r\n"],
    [400, "a bare CR in a header", "GET /api/health HTTP/1.1\r\nHost: shop\r\nX-A: 1\r2\r\n\r\n"],
    [400, "a negative Content-Length", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Length: -1\r\n\r\n"],
    [400, "a Content-Length that is no number", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Length: ten\r\n\r\n"],
    [400, "a Content-Length of 2^59 or more", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Length: 576460752303423488\r\n\r\n"],
    [400, "two different Content-Lengths", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"],
    [400, "Content-Length with Transfer-Encoding", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"],
    [400, "a Transfer-Encoding other than chunked", "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nTransfer-Encoding: gzip\r\n\r\n"],
    [
      400,
      "a chunk size that is no number",
      "POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    ],
    [505, "another HTTP version", "GET /api/health HTTP/2.0\r\nHost: shop\r\n\r\n"],
    [505, "lines ended by LF alone", "GET /api/health HTTP/1.1\nHost: shop\n\n"],
    [505, "a control character in the target", "GET /api/he\u0001alth HTTP/1.1\r\nHost: shop\r\n\r\n"],
  ])(
    "%i for %s: no X-Request-Id, no X-API-Version, no body, and the connection closed",
    async (status, _, request) => {
      const c = connection();
      try {
        await c.write(request);
        const answer = await c.answer();
        expect([answer?.status, answer?.headers, answer?.body]).toEqual([status, { connection: "close" }, ""]);
        await c.closedByServer();
      } finally {
        c.end();
      }
    },
    10_000,
  );

  test("a chunked body with a trailer, which Bun takes for a next request: its bare 400 closes the connection, and the shop does nothing of the request (found by an attack)", async () => {
    const email = `trailer-${Date.now()}@example.com`;
    const body = JSON.stringify({ email, password: "a sauce of many peppers" });
    const c = connection();
    try {
      await c.write(
        `POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
      );
      const answer = await c.answer();
      expect([answer?.status, answer?.headers]).toEqual([400, { connection: "close" }]);
      await c.closedByServer();
    } finally {
      c.end();
    }
    // Told 400, the client registers again: the account was not made the first time.
    const again = await ask(
      `POST /api/auth/register HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(again?.status).toBe(201);
  }, 10_000);

  test("a target with a fragment (#), which no client sends: 400, not routed with it and counted without it (found by an attack)", async () => {
    const answer = await ask("GET /api/health#x HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n");
    expect([answer?.status, JSON.parse(answer?.body ?? "null")]).toEqual([400, { error: "A request's target cannot hold a fragment (#)" }]);
    expect(carriesTheShopsHeaders(answer)).toEqual({ requestId: true, apiVersion: "1.0" });
  }, 10_000);

  test("broken chunk framing sent to a route that does not read the body: the shop's 404 goes out first, then Bun's bare 400", async () => {
    const c = connection();
    try {
      await c.write("POST /api/nowhere HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
      const first = await c.answer();
      expect([first?.status, carriesTheShopsHeaders(first)]).toEqual([404, { requestId: true, apiVersion: "1.0" }]);
      const second = await c.answer();
      expect([second?.status, second?.headers]).toEqual([400, { connection: "close" }]);
      await c.closedByServer();
    } finally {
      c.end();
    }
  }, 10_000);

  test.each([
    ["a method Bun does not know", "FOO"],
    ["a method in lower case", "get"],
  ])(
    "%s: no answer at all, the connection closed at once",
    async (_, method) => {
      expect(await ask(`${method} /api/health HTTP/1.1\r\nHost: shop\r\n\r\n`)).toBeNull();
    },
    10_000,
  );
});
