import type { RateLimitStore, WindowCount } from "../../application/ports/system.ts";

const SWEEP_EVERY = 1000;

/**
 * Fixed-window counters and sliding windows' hits in this process; expired windows and hits are
 * dropped when met and swept now and then.
 */
export function createMemoryRateLimitStore(): RateLimitStore & { forgetSliding(): void } {
  const windows = new Map<string, WindowCount>();
  /** A sliding window's hits (their time in ms, and name), oldest first, and how long each counts. */
  const slides = new Map<string, { hits: Array<{ at: number; name: string }>; windowMs: number }>();
  let countsSinceSweep = 0;
  const sweep = (now: Date) => {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    for (const [key, slide] of slides) if ((slide.hits.at(-1)?.at ?? 0) + slide.windowMs <= now.getTime()) slides.delete(key);
  };
  const swept = (now: Date) => {
    if (++countsSinceSweep >= SWEEP_EVERY) {
      countsSinceSweep = 0;
      sweep(now);
    }
  };
  const current = (key: string, now: Date) => {
    const entry = windows.get(key);
    if (entry && entry.resetAt > now) return entry;
    windows.delete(key);
    return null;
  };
  return {
    state: () => "memory",
    async increment(key, windowMs, now) {
      swept(now);
      const entry = current(key, now) ?? { count: 0, resetAt: new Date(now.getTime() + windowMs) };
      entry.count++;
      windows.set(key, entry);
      return { ...entry };
    },
    async hitSliding(key, windowMs, now, hit) {
      swept(now);
      const at = now.getTime();
      const hits = (slides.get(key)?.hits ?? []).filter((kept) => kept.at > at - windowMs);
      hits.push({ at, name: hit });
      slides.set(key, { hits, windowMs });
      return hits.length;
    },
    async countSliding(key, windowMs, now) {
      return (slides.get(key)?.hits ?? []).filter((kept) => kept.at > now.getTime() - windowMs).length;
    },
    async takeBackSliding(key, hit) {
      const slide = slides.get(key);
      const at = slide?.hits.findIndex((kept) => kept.name === hit) ?? -1;
      if (at >= 0) slide!.hits.splice(at, 1);
      return at >= 0;
    },
    async resetSliding(key, upTo) {
      const slide = slides.get(key);
      if (slide) slide.hits = slide.hits.filter((kept) => kept.at > upTo.getTime());
    },
    /** Every sliding window's hits gone (the failover's, once Redis holds them). */
    forgetSliding: () => slides.clear(),
  };
}
