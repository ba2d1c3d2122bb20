import { expect, test } from "bun:test";
import { readAhead } from "../../src/adapters/db/sql-helpers.ts";
import { quietSince } from "../../src/adapters/traffic.ts";

/** Rows 1..total read in keyset batches of 3, every read written down by the row it starts after. */
function numbers(total: number, failAfter?: number) {
  const reads: Array<number | null> = [];
  const read = async (after: number | null) => {
    reads.push(after);
    if (failAfter !== undefined && after === failAfter) throw new Error("connection lost");
    const from = (after ?? 0) + 1;
    return Array.from({ length: Math.max(0, Math.min(3, total - from + 1)) }, (_, i) => from + i);
  };
  return { reads, read };
}

const always = () => true;
const never = () => false;

async function all(batches: AsyncIterable<number[]>) {
  const out: number[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

test("batches come in order, each read once, and a short batch is the last, quiet or not", async () => {
  for (const quiet of [always, never]) {
    const { reads, read } = numbers(7);
    expect(await all(readAhead(read, 3, quiet))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(reads).toEqual([null, 3, 6]);
  }
});

test("a full last batch is followed by one empty read, and nothing more is handed on", async () => {
  const { reads, read } = numbers(6);
  expect(await all(readAhead(read, 3, always))).toEqual([
    [1, 2, 3],
    [4, 5, 6],
  ]);
  expect(reads).toEqual([null, 3, 6]);
  expect(await all(readAhead(numbers(0).read, 3, always))).toEqual([]);
});

test("while quiet, the next batch is already being read when the caller still holds this one", async () => {
  const { reads, read } = numbers(9);
  const batches = readAhead(read, 3, always);
  expect((await batches.next()).value).toEqual([1, 2, 3]);
  expect(reads).toEqual([null, 3]);
  expect((await batches.next()).value).toEqual([4, 5, 6]);
  expect(reads).toEqual([null, 3, 6]);
  await batches.return(undefined);
});

test("while others are asking, a batch is read only when the caller asks for it", async () => {
  const { reads, read } = numbers(9);
  const batches = readAhead(read, 3, never);
  expect((await batches.next()).value).toEqual([1, 2, 3]);
  expect(reads).toEqual([null]);
  expect((await batches.next()).value).toEqual([4, 5, 6]);
  expect(reads).toEqual([null, 3]);
  await batches.return(undefined);
});

test("a batch that failed to be read ahead fails when it is asked for, after the batches before it", async () => {
  const { read } = numbers(9, 3);
  const batches = readAhead(read, 3, always);
  expect((await batches.next()).value).toEqual([1, 2, 3]);
  // The failed read has settled before anyone asks: it waits for its turn, not thrown on its own.
  await Bun.sleep(1);
  await expect(batches.next()).rejects.toThrow("connection lost");
});

test("a download cut short leaves a failed read ahead unthrown (no unhandled rejection)", async () => {
  const rejections: unknown[] = [];
  const listen = (reason: unknown) => rejections.push(reason);
  process.on("unhandledRejection", listen);
  try {
    const batches = readAhead(numbers(9, 3).read, 3, always);
    await batches.next();
    await batches.return(undefined);
    await Bun.sleep(5);
    expect(rejections).toEqual([]);
  } finally {
    process.off("unhandledRejection", listen);
  }
});

test("quiet: true while no request arrives between two askings, false once one has", () => {
  let asked = 10;
  const quiet = quietSince({ asked: () => asked });
  expect(quiet()).toBe(true);
  asked++;
  expect(quiet()).toBe(false);
  expect(quiet()).toBe(true);
  asked += 3;
  expect(quiet()).toBe(false);
});
