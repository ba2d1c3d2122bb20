import type { Clock } from "../ports/system.ts";

/**
 * Housekeeping's way through what is due (refunds, intents to stop): claimed a batch at a time and
 * each worked in turn, until a claim comes back short or the run has lasted `windowMs`, the least
 * time before an item worked in it can be due again (its lease, or its retry after a failure). Past
 * that, a processor slow to fail made the run claim its own failures again, batch after batch, for
 * as long as the processor stayed slow, and housekeeping's later steps never came (found by a
 * review). What is left waits for the next run.
 */
export async function workThroughDue<T>(
  clock: Clock,
  { batch, windowMs }: { batch: number; windowMs: number },
  claim: (now: Date) => Promise<T[]>,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const ends = clock.now().getTime() + windowMs;
  for (;;) {
    const claimed = await claim(clock.now());
    for (const item of claimed) await work(item);
    if (claimed.length < batch || clock.now().getTime() >= ends) return;
  }
}
