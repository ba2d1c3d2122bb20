/**
 * What a call to another host may cost: the whole call, its answer's body included, given up at
 * `signal` (a deadline, AbortSignal.timeout), and an answer of at most `maxBytes`.
 */
export interface FetchBounds {
  signal: AbortSignal;
  maxBytes: number;
}

/**
 * The body of a 2xx answer, fetched within its bounds. No redirect is followed (it could lead off the
 * host the caller chose, carrying its headers); any other status is refused without reading its body.
 * A body over the size is refused as soon as its Content-Length says so or its bytes pass it, and
 * the rest is never read. The answer is asked for uncompressed and taken only so: Bun would inflate a
 * compressed one as it came, a zstd or gzip bomb costing some 100 MB a call before the size stopped
 * it (found by a review).
 */
export async function fetchWithin(url: string | URL, init: RequestInit, bounds: FetchBounds): Promise<Uint8Array> {
  const headers = new Headers(init.headers);
  headers.set("accept-encoding", "identity");
  const response = await fetch(url, { ...init, headers, redirect: "error", signal: bounds.signal, decompress: false } as RequestInit);
  const host = new URL(url).host;
  const tooLarge = () => new Error(`${host} answered more than ${bounds.maxBytes} bytes`);
  const encoding = response.headers.get("content-encoding");
  if (!response.ok || Number(response.headers.get("content-length")) > bounds.maxBytes || (encoding && encoding !== "identity")) {
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${host} answered ${response.status}`);
    throw encoding && encoding !== "identity" ? new Error(`${host} answered compressed (${encoding}), asked not to`) : tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > bounds.maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
