import { afterAll, describe, expect, test } from "bun:test";
import { brotliCompressSync, crc32 } from "node:zlib";
import { certificateCache, httpsCertificateSource } from "../../src/adapters/events/paypal-certificates.ts";
import { createFixedClock } from "../../src/adapters/memory/deps.ts";
import { PAYPAL_TEST_CERT, testCertificateSource } from "../support/paypal-certificates.ts";

describe("the certificate cache", () => {
  const url = (n: number) => new URL(`https://api.paypal.com/v1/notifications/certs/CERT-${n}`);

  test("deliveries asking at once for a URL not fetched yet share one fetch", async () => {
    const source = testCertificateSource(() => PAYPAL_TEST_CERT);
    const certificateAt = certificateCache(source, createFixedClock());
    const release = source.hold();
    const asked = Array.from({ length: 10 }, () => certificateAt(url(1)));
    release();
    const subjects = (await Promise.all(asked)).map((certificate) => certificate.subject);
    expect(subjects).toEqual(Array(10).fill("CN=storefront-paypal-test-cert"));
    expect(source.fetched).toHaveLength(1);
  });

  test("it holds the 32 URLs used last: the one used longest ago is fetched again, one used since is not", async () => {
    const source = testCertificateSource(() => PAYPAL_TEST_CERT);
    const certificateAt = certificateCache(source, createFixedClock());
    for (let n = 0; n < 32; n++) await certificateAt(url(n));
    await certificateAt(url(0));
    await certificateAt(url(32));
    expect(source.fetched).toHaveLength(33);
    await certificateAt(url(0));
    expect(source.fetched).toHaveLength(33);
    await certificateAt(url(1));
    expect(source.fetched.at(-1)).toBe(url(1).href);
    expect(source.fetched).toHaveLength(34);
  });
});

describe("the platform's CRC-32, which PayPal's signature covers", () => {
  test("is the standard CRC-32 (check value of '123456789'), and Bun's own agrees on any bytes", () => {
    expect(crc32("123456789")).toBe(3421780262);
    const bytes = new Uint8Array(Array.from({ length: 1024 }, (_, i) => (i * 7919) % 256));
    expect(crc32(bytes)).toBe(Bun.hash.crc32(bytes));
  });
});

/** zstd (its window may ask for 128 MB), compress, two at once, and a name every object has. */
const UNREAD_ENCODINGS = ["zstd", "compress", "gzip, br", "constructor"];

describe("fetching a certificate over the network", () => {
  const huge = "x".repeat(200 * 1024);
  let stalled = Promise.withResolvers<void>();
  let askedEncoding: string | null = null;
  const brBomb = brotliCompressSync(new Uint8Array(8 * 1024 * 1024));
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/cert.pem") {
        askedEncoding = request.headers.get("accept-encoding");
        return new Response(PAYPAL_TEST_CERT);
      }
      // A host that compresses all the same: 64 KB of gzip would inflate to 64 MB (a bomb).
      if (path === "/gzip") return new Response(Bun.gzipSync(new Uint8Array(64 * 1024 * 1024)), { headers: { "content-encoding": "gzip" } });
      // The certificate compressed though asked not to, as some hosts and CDNs do; in an encoding nobody reads; and broken.
      const cert = new TextEncoder().encode(PAYPAL_TEST_CERT);
      if (path === "/cert.gz") return new Response(Bun.gzipSync(cert), { headers: { "content-encoding": "gzip" } });
      if (path === "/cert.br") return new Response(brotliCompressSync(cert), { headers: { "content-encoding": "br" } });
      // A few bytes of br that inflate to 8 MB: only the inflating's own limit stops it.
      if (path === "/br") return new Response(brBomb, { headers: { "content-encoding": "br" } });
      const unread = UNREAD_ENCODINGS.findIndex((_, i) => path === `/unread-${i}`);
      if (unread >= 0) return new Response(cert, { headers: { "content-encoding": UNREAD_ENCODINGS[unread]! } });
      if (path === "/cert.broken") return new Response(Bun.gzipSync(cert).subarray(0, 100), { headers: { "content-encoding": "gzip" } });
      if (path === "/moved") return Response.redirect("/cert.pem", 302);
      if (path === "/huge") return new Response(huge);
      if (path === "/huge-streamed") {
        // Sent chunked, with no Content-Length: only counting what arrives stops it.
        const bytes = new TextEncoder().encode(huge);
        return new Response(
          new ReadableStream({
            start(controller) {
              for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
              controller.close();
            },
          }),
        );
      }
      if (path === "/stalled-body") {
        const { promise } = stalled;
        return new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode("-----BEGIN CERTIFICATE-----\n"));
              await promise;
              controller.close();
            },
          }),
        );
      }
      if (path === "/stalled") await stalled.promise;
      return new Response("not found", { status: 404 });
    },
  });
  afterAll(() => {
    stalled.resolve();
    server.stop(true);
  });
  const at = (path: string) => new URL(`http://127.0.0.1:${server.port}${path}`);
  const source = httpsCertificateSource({ timeoutMs: 300, maxBytes: 64 * 1024 });

  test("answers the certificate's text, asked for uncompressed", async () => {
    expect(await source.fetch(at("/cert.pem"))).toBe(PAYPAL_TEST_CERT);
    expect(askedEncoding).toBe("identity");
  });

  test("takes the certificate compressed with gzip or br when the host compresses though asked not to", async () => {
    for (const path of ["/cert.gz", "/cert.br"]) expect(await source.fetch(at(path))).toBe(PAYPAL_TEST_CERT);
  });

  test("refuses an error status, a redirect (it could leave paypal.com), more than 64 KB, with a length, sent chunked or once inflated (a bomb: found by a review), an encoding it does not read, and a broken one", async () => {
    for (const path of ["/missing", "/moved", "/huge", "/huge-streamed", "/gzip", "/cert.broken"]) {
      expect(
        await source.fetch(at(path)).then(
          () => `${path} fetched`,
          () => "refused",
        ),
      ).toBe("refused");
    }
    await expect(source.fetch(at("/br"))).rejects.toThrow(/answered more than 65536 bytes/);
    for (const [i, encoding] of UNREAD_ENCODINGS.entries())
      await expect(source.fetch(at(`/unread-${i}`))).rejects.toThrow(`answered in an encoding the shop does not read (${encoding})`);
  });

  // Without the time limit this waits for the server, which waits for the test: the test's own 5 s fail it.
  test("gives up when the host does not answer in time, or stops half way", async () => {
    stalled = Promise.withResolvers<void>();
    for (const path of ["/stalled", "/stalled-body"])
      expect(
        await source.fetch(at(path)).then(
          () => "fetched",
          () => "refused",
        ),
      ).toBe("refused");
    stalled.resolve();
  }, 5_000);
});
