/** Decisions §2: `<PREFIX>-YYYYMMDD-XXXX`, the date in UTC, XXXX four characters from A–Z and 0–9. */
export const ORDER_NUMBER_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const ORDER_SUFFIX_LENGTH = 4;
export const ORDER_PREFIX_PATTERN = /^[A-Z0-9]{1,10}$/;

const SHAPE = /^([A-Z0-9]{1,10})-(\d{4})(\d{2})(\d{2})-([A-Z0-9]{4})$/;

/**
 * A new order number for the given moment. `pick(n)` is the randomness, passed in: a uniform whole
 * number in [0, n), one per suffix character. Numbers are unique by the database's index; a
 * collision is met by asking for another.
 */
export function orderNumber(prefix: string, at: Date, pick: (n: number) => number): string {
  const date = at.toISOString().slice(0, 10).replaceAll("-", "");
  let suffix = "";
  for (let i = 0; i < ORDER_SUFFIX_LENGTH; i++) suffix += ORDER_NUMBER_ALPHABET[pick(ORDER_NUMBER_ALPHABET.length)];
  return `${prefix}-${date}-${suffix}`;
}

/** The parts of an order number, or null when the text is not one. */
export function parseOrderNumber(text: string): { prefix: string; date: string; suffix: string } | null {
  const match = SHAPE.exec(text);
  if (!match) return null;
  const [, prefix, year, month, day, suffix] = match as unknown as [string, string, string, string, string, string];
  const date = new Date(`${year}-${month}-${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${year}-${month}-${day}`) return null;
  return { prefix, date: `${year}${month}${day}`, suffix };
}
