import { expect, test } from "bun:test";
import { messageOf } from "../../src/domain/errors.ts";

test("messageOf says what a thrown object that is no Error holds: its message, name, code or errno, else its JSON, where '[object Object]' said nothing (found by an attack)", () => {
  expect(messageOf(new Error("connect ECONNREFUSED"))).toBe("connect ECONNREFUSED");
  expect(messageOf("a string")).toBe("a string");
  // What PGlite's file system throws for a full disk.
  expect(messageOf({ name: "ErrnoError", errno: 51 })).toBe("ErrnoError errno 51");
  expect(messageOf({ message: "said plainly" })).toBe("said plainly");
  expect(messageOf({ code: "E_SOMETHING" })).toBe("E_SOMETHING");
  expect(messageOf({ detail: 1 })).toBe('{"detail":1}');
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  expect(messageOf(circular)).toBe("[object Object]");
});
