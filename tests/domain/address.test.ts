import { describe, expect, test } from "bun:test";
import { COUNTRY_CODES, addressLines, addressProblems, normalizeAddress } from "../../src/domain/address.ts";

const austin = { address1: "1 Main St", city: "Austin", state: "tx", postalCode: "78701" };

describe("addresses an order ships to (decisions §2)", () => {
  test("a plain US address has no problem, its codes upper-cased and US the country", () => {
    const address = normalizeAddress(austin);
    expect(address).toEqual({ address1: "1 Main St", address2: null, city: "Austin", state: "TX", postalCode: "78701", country: "US" });
    expect(addressProblems(address)).toEqual([]);
    expect(addressLines(address)).toBe("1 Main St\nAustin, TX 78701\nUS");
  });

  test("a line break or tab in any field is refused, so no field can forge a line of the label", () => {
    for (const forged of ["1 Main St\nHouston, TX 77001", "1 Main St\r\nX", "a\tb", "a\u2028b"]) {
      expect(addressProblems(normalizeAddress({ ...austin, address1: forged }))).toEqual([{ field: "address1", message: "must be one line" }]);
    }
    expect(addressProblems(normalizeAddress({ ...austin, city: "Austin\nUS", address2: "Apt\n4" }))).toEqual([
      { field: "address2", message: "must be one line" },
      { field: "city", message: "must be one line" },
    ]);
  });

  test("a field with no letter or digit (zero-width or punctuation only) names no place", () => {
    expect(addressProblems(normalizeAddress({ ...austin, address1: "\u200b" }))).toEqual([{ field: "address1", message: "must contain a letter or a digit" }]);
    expect(addressProblems(normalizeAddress({ ...austin, city: "--" }))).toEqual([{ field: "city", message: "must contain a letter or a digit" }]);
  });

  test("a US address needs a state code and a ZIP code; elsewhere any one-line values do", () => {
    expect(addressProblems(normalizeAddress({ ...austin, state: "Texas", postalCode: "787" }))).toEqual([
      { field: "state", message: "must be a US state code (two letters, e.g. TX)" },
      { field: "postalCode", message: "must be a ZIP code (12345 or 12345-6789)" },
    ]);
    expect(
      addressProblems(normalizeAddress({ address1: "10 Downing St", city: "London", state: "Greater London", postalCode: "SW1A 2AA", country: "gb" })),
    ).toEqual([]);
  });

  test("the country is one ISO 3166-1 assigns: a made-up or reserved code (XX, UK, EU) is a problem naming it", () => {
    const london = { address1: "10 Downing St", city: "London", state: "Greater London", postalCode: "SW1A 2AA" };
    for (const country of ["XX", "uk", "EU", "ZZ"]) {
      expect(addressProblems(normalizeAddress({ ...london, country }))).toEqual([
        { field: "country", message: "must be an ISO 3166-1 alpha-2 country code (e.g. US, CA)" },
      ]);
    }
    for (const country of ["GB", "ca", "AX", "ZW"]) expect(addressProblems(normalizeAddress({ ...london, country }))).toEqual([]);
    expect(COUNTRY_CODES.size).toBe(249);
  });

  test("Puerto Rico written as its own country ships as the US state PR", () => {
    expect(normalizeAddress({ ...austin, state: "San Juan", country: "PR" })).toMatchObject({ country: "US", state: "PR" });
  });
});
