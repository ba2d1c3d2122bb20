import { expect, test } from "bun:test";
import { isCuid2 } from "../../src/domain/ids.ts";
import { cuid2Ids } from "../../src/adapters/system.ts";

test("ids have the CUID2 shape and do not repeat", () => {
  const ids = Array.from({ length: 50_000 }, cuid2Ids.next);
  expect(ids.every(isCuid2)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  // Uniform: every letter turns up first, every character of the alphabet elsewhere.
  expect(new Set(ids.map((id) => id[0])).size).toBe(26);
  expect(new Set(ids.flatMap((id) => [...id.slice(1)])).size).toBe(36);
});
