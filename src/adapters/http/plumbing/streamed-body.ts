/**
 * How a streamed answer's body ended: sent whole, cut by the shop (a failure after its first bytes
 * went), or abandoned by its client (who stopped reading and closed the connection); and how many
 * bytes of it were handed over.
 */
export interface BodyEnd {
  body: "sent" | "cut" | "abandoned";
  bytes: number;
}

const ends = new WeakMap<Request, Promise<BodyEnd>>();

/**
 * For an answer whose body is streamed as the client reads it (an export): the request is over when
 * its body is, not when its headers go. Its log line, metrics and span wait for `bodyEndOf`; the
 * streamer calls the function returned once the body has ended (the first call counts). A client
 * that goes away is taken as the end too, should the stream never hear of it.
 */
export function streamingBody(request: Request, bytesSoFar: () => number): (body: BodyEnd["body"]) => void {
  const { promise, resolve } = Promise.withResolvers<BodyEnd>();
  ends.set(request, promise);
  const end = (body: BodyEnd["body"]) => resolve({ body, bytes: bytesSoFar() });
  request.signal.addEventListener("abort", () => end("abandoned"), { once: true });
  return end;
}

/** A streamed answer's end, once it comes; undefined for any other answer, over as its headers go. */
export const bodyEndOf = (request: Request): Promise<BodyEnd> | undefined => ends.get(request);
