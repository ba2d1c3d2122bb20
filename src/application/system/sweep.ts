/** How many orders one of a sweep's reads brings. */
const BATCH = 100;

/**
 * Every row a housekeeping sweep reads, a batch at a time, each batch read after the last row of
 * the one before (keyset paging), until a batch comes back short: the rows a run handles, with
 * each read brief and none holding all of them at once.
 */
export async function* swept<T>(read: (limit: number, after: T | undefined) => Promise<T[]>): AsyncGenerator<T> {
  let after: T | undefined;
  for (;;) {
    const batch = await read(BATCH, after);
    yield* batch;
    if (batch.length < BATCH) return;
    after = batch.at(-1);
  }
}
