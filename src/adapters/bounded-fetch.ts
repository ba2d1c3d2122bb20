import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

/**
 * What a call to another host may cost: the whole call, its answer's body included, given up at
 * `signal` (a deadline, AbortSignal.timeout), and an answer of at most `maxBytes`.
 */
export interface FetchBounds {
  signal: AbortSignal;
  maxBytes: number;
}

/**
 * The encodings read when a host compresses though asked not to (RFC 9110 §8.4.1). Not zstd: a
 * frame may ask for a window of up to 128 MB, which node:zlib offers no way to refuse here.
 */
const DECODERS = new Map<string, (body: Uint8Array, options: { maxOutputLength: number }) => Buffer>([
  ["gzip", gunzipSync],
  ["x-gzip", gunzipSync],
  ["deflate", inflateSync],
  ["br", brotliDecompressSync],
]);

/**
 * The body of a 2xx answer, fetched within its bounds. No redirect is followed (it could lead off the
 * host the caller chose, carrying its headers); any other status is refused without reading its body.
 * A body over the size is refused as soon as its Content-Length says so or its bytes pass it, and
 * the rest is never read. The answer is asked for uncompressed. One compressed all the same (gzip,
 * deflate or br: some hosts and their CDNs ignore `identity`, and every sign-in through such a
 * provider failed) is inflated here, up to the size: a gzip or br bomb stops there, where Bun's
 * own inflating took some 100 MB a call before the size stopped it (found by a review). Any other
 * encoding is refused.
 */
export async function fetchWithin(url: string | URL, init: RequestInit, bounds: FetchBounds): Promise<Uint8Array> {
  const headers = new Headers(init.headers);
  headers.set("accept-encoding", "identity");
  const response = await fetch(url, { ...init, headers, redirect: "error", signal: bounds.signal, decompress: false } as RequestInit);
  const host = new URL(url).host;
  const tooLarge = () => new Error(`${host} answered more than ${bounds.maxBytes} bytes`);
  const encoding = response.headers.get("content-encoding")?.trim().toLowerCase() || "identity";
  const decode = encoding === "identity" ? null : DECODERS.get(encoding);
  if (!response.ok || Number(response.headers.get("content-length")) > bounds.maxBytes || decode === undefined) {
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${host} answered ${response.status}`);
    throw decode === undefined ? new Error(`${host} answered in an encoding the shop does not read (${encoding})`) : tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > bounds.maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  if (!decode) return body;
  try {
    return decode(body, { maxOutputLength: bounds.maxBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw new Error(`${host} answered a broken ${encoding} body`, { cause: error });
  }
}
