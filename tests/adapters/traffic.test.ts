import { expect, test } from "bun:test";
import { csvResponse } from "../../src/adapters/http/csv.ts";
import { type Traffic, givingWay, processTraffic } from "../../src/adapters/traffic.ts";
import { call, createTestApp } from "../support/http.ts";

/**
 * A server's traffic on a fake clock: each piece of the download takes the time its source says,
 * requests arrive when the source says, and a rest only moves the clock (and is written down).
 */
function fakeTraffic() {
  const state = { now: 0, asked: 0, rests: [] as number[] };
  const traffic: Traffic = {
    asked: () => state.asked,
    now: () => state.now,
    rest: async (ms) => {
      state.rests.push(ms);
      state.now += ms;
    },
  };
  return { state, traffic };
}

/** Pieces that each take `took[i]` ms to make, `arrive[i]` requests arriving meanwhile. */
async function* pieces(state: { now: number; asked: number }, took: number[], arrive: number[], closed?: { done: boolean }) {
  try {
    for (let i = 0; i < took.length; i++) {
      state.now += took[i]!;
      state.asked += arrive[i]!;
      yield `piece ${i}`;
    }
  } finally {
    if (closed) closed.done = true;
  }
}

async function all(source: AsyncIterable<string>) {
  const out: string[] = [];
  for await (const piece of source) out.push(piece);
  return out;
}

test("with nobody else asking, a download runs at full speed: every piece, in order, no rest", async () => {
  const { state, traffic } = fakeTraffic();
  expect(await all(givingWay(pieces(state, [4, 5, 6], [0, 0, 0]), traffic))).toEqual(["piece 0", "piece 1", "piece 2"]);
  expect(state.rests).toEqual([]);
});

test("when requests arrive while a piece is made, the next waits twice as long as that piece took", async () => {
  const { state, traffic } = fakeTraffic();
  // Piece 0 (4 ms) saw 3 requests arrive, piece 1 (5 ms) none, piece 2 (6 ms) one; piece 3 is the last.
  const out = await all(givingWay(pieces(state, [4, 5, 6, 2], [3, 0, 1, 0]), traffic));
  expect(out).toEqual(["piece 0", "piece 1", "piece 2", "piece 3"]);
  expect(state.rests).toEqual([8, 12]);
  // Under traffic the download took at most a third of the time: 17 ms of work in 37 ms.
  expect(state.now).toBe(37);
});

test("a download cut short (the client went away) closes its source, so its connection goes back to the pool", async () => {
  const { state, traffic } = fakeTraffic();
  const closed = { done: false };
  const download = givingWay(pieces(state, [1, 1, 1], [1, 1, 1], closed), traffic);
  expect((await download.next()).value).toBe("piece 0");
  await download.return(undefined);
  expect(closed.done).toBe(true);
});

test("a streamed CSV answer gives way: the same pieces, with the rests the traffic called for", async () => {
  const { state, traffic } = fakeTraffic();
  const res = csvResponse(new Request("http://localhost/api/admin/orders/export"), "orders-20261126.csv", pieces(state, [3, 3, 3], [2, 2, 0]), { traffic });
  expect(await res.text()).toBe("piece 0piece 1piece 2");
  expect(state.rests).toEqual([6, 6]);
});

test("every request the API is asked is counted, whatever its answer", async () => {
  const { app } = createTestApp();
  const before = processTraffic.asked();
  await call(app, "GET", "/api/products");
  await call(app, "GET", "/api/no-such-route");
  await call(app, "POST", "/api/cart", { body: "{not json" });
  expect(processTraffic.asked() - before).toBe(3);
});
