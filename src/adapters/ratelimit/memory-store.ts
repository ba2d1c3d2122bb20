import type { RateLimitStore, WindowCount } from "../../application/ports/system.ts";

const SWEEP_EVERY = 1000;
/** How long a sliding window's last reset is kept (as Redis keeps it): longer than the shop's windows and outages. */
const RESET_KEPT_MS = 60 * 60 * 1000;

/**
 * Fixed-window counters and sliding windows' hits in this process; expired windows and hits are
 * dropped when met and swept now and then.
 */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, WindowCount>();
  /**
   * A sliding window's hits (their time in ms, and name), oldest first, how long each counts, and
   * the time of its last reset (a hit made before it, arriving after it, is not counted).
   */
  const slides = new Map<string, { hits: Array<{ at: number; name: string }>; windowMs: number; resetUpTo: number }>();
  let countsSinceSweep = 0;
  const sweep = (now: Date) => {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    for (const [key, slide] of slides) {
      const lastHit = (slide.hits.at(-1)?.at ?? 0) + slide.windowMs;
      if (Math.max(lastHit, slide.resetUpTo + RESET_KEPT_MS) <= now.getTime()) slides.delete(key);
    }
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
      const slide = slides.get(key) ?? { hits: [], windowMs, resetUpTo: -1 };
      slide.hits = slide.hits.filter((kept) => kept.at > at - windowMs);
      if (at >= slide.resetUpTo) slide.hits.push({ at, name: hit });
      slide.windowMs = windowMs;
      slides.set(key, slide);
      return slide.hits.length;
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
      const slide = slides.get(key) ?? { hits: [], windowMs: 0, resetUpTo: -1 };
      slide.hits = slide.hits.filter((kept) => kept.at > upTo.getTime());
      slide.resetUpTo = Math.max(slide.resetUpTo, upTo.getTime());
      slides.set(key, slide);
    },
  };
}
