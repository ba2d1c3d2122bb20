import type { RateLimitStore, WindowCount } from "../../application/ports/system.ts";

const SWEEP_EVERY = 1000;

/** Fixed-window counters in this process; expired windows are dropped when met and swept now and then. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, WindowCount>();
  let incrementsSinceSweep = 0;
  const sweep = (now: Date) => {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
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
      if (++incrementsSinceSweep >= SWEEP_EVERY) {
        incrementsSinceSweep = 0;
        sweep(now);
      }
      const entry = current(key, now) ?? { count: 0, resetAt: new Date(now.getTime() + windowMs) };
      entry.count++;
      windows.set(key, entry);
      return { ...entry };
    },
    async reset(key) {
      windows.delete(key);
    },
    async decrement(key) {
      const entry = windows.get(key);
      if (entry && entry.count > 0) entry.count--;
    },
  };
}
