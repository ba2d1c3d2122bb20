import { describe, expect, test } from "bun:test";
import { safeReturn } from "../../web/storefront/session.tsx";

// Where sign-in and registration send the shopper afterwards (`?return=`): a path on this site, read
// as the browser will read it, or the home page.
describe("safeReturn: the way back after signing in", () => {
  test("a path on this site is kept, with its query and fragment", () => {
    expect(safeReturn("/orders/abc")).toBe("/orders/abc");
    expect(safeReturn("/search?q=habanero#top")).toBe("/search?q=habanero#top");
    expect(safeReturn(undefined)).toBe("/");
    expect(safeReturn("", "/cart")).toBe("/cart");
  });

  test("anything the browser would take to another site is the fallback instead", () => {
    for (const elsewhere of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example/x", // a backslash is a slash to the browser: //evil.example
      "/\t/evil.example/x", // tabs and line breaks are dropped: //evil.example
      "/\n/evil.example/x",
      "\\\\evil.example/x",
      "javascript:alert(1)",
      "evil.example",
      "//[", // a host that is not one
      // Dot segments the browser resolves away: each is //evil.example once resolved.
      "/.//evil.example",
      "/a/..//evil.example",
      "/%2e//evil.example",
    ]) {
      expect([elsewhere, safeReturn(elsewhere)]).toEqual([elsewhere, "/"]);
    }
  });
});
