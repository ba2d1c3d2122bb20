/** A postal address as an order carries it (spec: Address). `country` is an ISO 3166-1 alpha-2 code. */
export interface Address {
  address1: string;
  address2: string | null;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/** The codes a US address may give as its state: the 50 states, DC, and Puerto Rico. */
export const US_STATES = [
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME",
  "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "PR",
  "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
] as const;
export type UsState = (typeof US_STATES)[number];

const US_ZIP = /^\d{5}(-\d{4})?$/;

/**
 * The address as the shop keeps it: codes upper-cased, an empty second line dropped, and Puerto
 * Rico written as its own country (PR) taken as what the shop ships it as, the US state PR.
 */
export function normalizeAddress(address: Omit<Address, "address2" | "country"> & { address2?: string | null; country?: string }): Address {
  let country = (address.country ?? "US").toUpperCase();
  let state = address.state.toUpperCase();
  if (country === "PR") [country, state] = ["US", "PR"];
  return {
    address1: address.address1,
    address2: address.address2 || null,
    city: address.city,
    state: country === "US" ? state : address.state,
    postalCode: address.postalCode,
    country,
  };
}

const LINE_FIELDS = ["address1", "address2", "city", "state", "postalCode"] as const;
// Line breaks and tabs would forge extra lines on the label (decisions §2 joins the lines with "\n").
const BREAKS = /[\t\n\r\u0085\u2028\u2029]/;
// A field of nothing but spaces, zero-width characters or punctuation names no place.
const VISIBLE = /[\p{L}\p{N}]/u;

/**
 * What is wrong with a (normalized) address, by field: every field one line that names something
 * (a letter or a digit in it); a US address also needs a US state code and a ZIP code.
 */
export function addressProblems(address: Address): Array<{ field: keyof Address; message: string }> {
  const problems: Array<{ field: keyof Address; message: string }> = [];
  for (const field of LINE_FIELDS) {
    const value = address[field];
    if (value === null) continue;
    if (BREAKS.test(value)) problems.push({ field, message: "must be one line" });
    else if (!VISIBLE.test(value)) problems.push({ field, message: "must contain a letter or a digit" });
  }
  if (address.country !== "US") return problems;
  const fine = (field: keyof Address) => !problems.some((p) => p.field === field);
  if (fine("state") && !(US_STATES as readonly string[]).includes(address.state)) problems.push({ field: "state", message: "must be a US state code (two letters, e.g. TX)" });
  if (fine("postalCode") && !US_ZIP.test(address.postalCode)) problems.push({ field: "postalCode", message: "must be a ZIP code (12345 or 12345-6789)" });
  return problems;
}

/** Decisions §2: the shipping address as text, one line each, joined by "\n". */
export function addressLines(address: Address): string {
  return [address.address1, address.address2, `${address.city}, ${address.state} ${address.postalCode}`, address.country]
    .filter((line): line is string => Boolean(line))
    .join("\n");
}
