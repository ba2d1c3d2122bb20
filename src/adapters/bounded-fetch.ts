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
 * the rest is never read.
 */
export async function fetchWithin(url: string | URL, init: RequestInit, bounds: FetchBounds): Promise<Uint8Array> {
  const response = await fetch(url, { ...init, redirect: "error", signal: bounds.signal });
  const host = new URL(url).host;
  const tooLarge = () => new Error(`${host} answered more than ${bounds.maxBytes} bytes`);
  if (!response.ok || Number(response.headers.get("content-length")) > bounds.maxBytes) {
    await response.body?.cancel();
    throw response.ok ? tooLarge() : new Error(`${host} answered ${response.status}`);
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
