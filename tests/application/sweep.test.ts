import { expect, test } from "bun:test";
import { swept } from "../../src/application/system/sweep.ts";

// Housekeeping's sweeps (expiry, stranded checkouts, abandoned payments) read their orders through swept.
const rowsUpTo = (count: number) => Array.from({ length: count }, (_, i) => i);

test.each([
  [0, 1],
  [99, 1],
  [100, 2],
  [250, 3],
])("a sweep over %i rows yields each once, in order, in %i reads, each after the last row of the one before", async (count, reads) => {
  const all = rowsUpTo(count);
  const asked: Array<number | undefined> = [];
  const read = async (limit: number, after: number | undefined) => {
    asked.push(after);
    return all.filter((row) => after === undefined || row > after).slice(0, limit);
  };
  const seen: number[] = [];
  for await (const row of swept(read)) seen.push(row);
  expect(seen).toEqual(all);
  expect(asked).toEqual([undefined, 99, 199].slice(0, reads));
});
