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
  "AL",
  "AK",
  "AZ",
  "AR",
  "CA",
  "CO",
  "CT",
  "DE",
  "DC",
  "FL",
  "GA",
  "HI",
  "ID",
  "IL",
  "IN",
  "IA",
  "KS",
  "KY",
  "LA",
  "ME",
  "MD",
  "MA",
  "MI",
  "MN",
  "MS",
  "MO",
  "MT",
  "NE",
  "NV",
  "NH",
  "NJ",
  "NM",
  "NY",
  "NC",
  "ND",
  "OH",
  "OK",
  "OR",
  "PA",
  "PR",
  "RI",
  "SC",
  "SD",
  "TN",
  "TX",
  "UT",
  "VT",
  "VA",
  "WA",
  "WV",
  "WI",
  "WY",
] as const;
export type UsState = (typeof US_STATES)[number];

const US_ZIP = /^\d{5}(-\d{4})?$/;

/** The 249 country codes ISO 3166-1 alpha-2 assigns (not the reserved ones, such as UK, EU or XK). */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ " +
    "BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR " +
    "CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
    "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU " +
    "ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ " +
    "LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ " +
    "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF " +
    "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI " +
    "SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR " +
    "TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
  ).split(" "),
);

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
 * (a letter or a digit in it), a country ISO 3166-1 assigns; a US address also needs a US state
 * code and a ZIP code.
 */
export function addressProblems(address: Address): Array<{ field: keyof Address; message: string }> {
  const problems: Array<{ field: keyof Address; message: string }> = [];
  for (const field of LINE_FIELDS) {
    const value = address[field];
    if (value === null) continue;
    if (BREAKS.test(value)) problems.push({ field, message: "must be one line" });
    else if (!VISIBLE.test(value)) problems.push({ field, message: "must contain a letter or a digit" });
  }
  if (!COUNTRY_CODES.has(address.country)) problems.push({ field: "country", message: "must be an ISO 3166-1 alpha-2 country code (e.g. US, CA)" });
  if (address.country !== "US") return problems;
  const fine = (field: keyof Address) => !problems.some((p) => p.field === field);
  if (fine("state") && !(US_STATES as readonly string[]).includes(address.state))
    problems.push({ field: "state", message: "must be a US state code (two letters, e.g. TX)" });
  if (fine("postalCode") && !US_ZIP.test(address.postalCode)) problems.push({ field: "postalCode", message: "must be a ZIP code (12345 or 12345-6789)" });
  return problems;
}

/** Decisions §2: the shipping address as text, one line each, joined by "\n". */
export function addressLines(address: Address): string {
  return [address.address1, address.address2, `${address.city}, ${address.state} ${address.postalCode}`, address.country]
    .filter((line): line is string => Boolean(line))
    .join("\n");
}
