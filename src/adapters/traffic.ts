/**
 * How many requests this process has been asked since it started: counted by the HTTP request
 * context, first on every request, and read by long work to give way (givingWay) or to go faster
 * while nobody asks (quietSince). A count that only grows, so nothing can leave it out of step: a
 * request that fails or never answers is simply one more. A process serving no requests (the CLI)
 * is always quiet.
 */
let asked = 0;

export const countRequest = (): void => {
  asked++;
};

/** What givingWay reads: the count of requests asked, the time in milliseconds, and how to rest. */
export interface Traffic {
  asked(): number;
  now(): number;
  rest(ms: number): Promise<void>;
}

export const processTraffic: Traffic = {
  asked: () => asked,
  now: () => performance.now(),
  rest: (ms) => Bun.sleep(ms),
};

/** A question to ask again and again: has no request arrived since it was last asked (or, the first time, since now)? */
export function quietSince(traffic: Pick<Traffic, "asked"> = processTraffic): () => boolean {
  let seen = traffic.asked();
  return () => {
    const now = traffic.asked();
    const quiet = now === seen;
    seen = now;
    return quiet;
  };
}

/**
 * A long download's pieces at background priority: when other requests arrived while a piece was
 * being made, the next one waits twice as long as that piece took. So while the shop is busy, an
 * export takes at most a third of the time of this server's thread (and of the database, whose
 * batches are made in that time too), and runs at full speed when nobody else is asking: the idea
 * of PostgreSQL's cost-based vacuum delay. Resting as long as the piece took (half the time) left
 * the catalog's p99 during an export at 1.50 to 2.13 times its idle p99; twice as long, 1.20 and
 * 1.50 (bench:admin, bench/README.md).
 */
export async function* givingWay<T>(pieces: AsyncIterable<T>, traffic: Traffic = processTraffic): AsyncGenerator<T> {
  const iterator = pieces[Symbol.asyncIterator]();
  let rest = 0;
  try {
    for (;;) {
      if (rest > 0) await traffic.rest(rest);
      const began = traffic.now();
      const askedBefore = traffic.asked();
      const next = await iterator.next();
      if (next.done) return;
      rest = traffic.asked() === askedBefore ? 0 : 2 * (traffic.now() - began);
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}
