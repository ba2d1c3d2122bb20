/**
 * A JSON value written with every object's keys in one order and no spacing: two bodies with the
 * same parameters read the same, however a client ordered and spaced them, while any other value
 * (a nested one, an array's order, 1 against "1") still reads differently. Called on input already
 * checked for depth (decisions §10: at most 32 levels), so the recursion is bounded.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${fields.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(",")}}`;
  }
  // undefined: no body at all.
  return JSON.stringify(value) ?? "";
}
