import { expect, test } from "bun:test";
import { ORDER_NUMBER_ALPHABET, orderNumber, parseOrderNumber } from "../../src/domain/order-number.ts";

/** Randomness that answers from a script, so the suffix is known. */
const scripted =
  (...values: number[]) =>
  (n: number) => {
    const value = values.shift() ?? 0;
    if (value >= n) throw new Error(`asked below ${n}, scripted ${value}`);
    return value;
  };

/** Runs `check` (synchronous: nothing else runs meanwhile) with the process's local time zone set to `zone` (Bun reads TZ afresh), then puts the zone back. */
function inZone(zone: string, check: () => void): void {
  const was = process.env.TZ;
  process.env.TZ = zone;
  try {
    check();
  } finally {
    // Unset, bun test runs in Etc/UTC (deleting TZ could bring back the machine's own zone instead).
    process.env.TZ = was ?? "Etc/UTC";
  }
}

test("PREFIX-YYYYMMDD-XXXX with the date in UTC, not the server's zone", () => {
  // Tests run in UTC, where local and UTC dates agree: the server's zone is set far from it on either side.
  for (const zone of ["America/New_York", "Pacific/Pago_Pago", "Pacific/Kiritimati"]) {
    inZone(zone, () => {
      // 23:30 in New York on the 31st is already the 1st in UTC.
      const [early, late] = [new Date("2027-01-01T04:30:00Z"), new Date("2026-12-31T23:59:59.999Z")];
      // The zone took effect: one of the two moments falls on another day there.
      expect([early.getDate(), late.getDate()]).not.toEqual([1, 31]);
      expect(orderNumber("SF", early, scripted(0, 25, 26, 35))).toBe("SF-20270101-AZ09");
      expect(orderNumber("HOT", late, scripted(1, 2, 3, 4))).toBe("HOT-20261231-BCDE");
    });
  }
});

test("the suffix draws each character from A–Z and 0–9 with the randomness given", () => {
  const asked: number[] = [];
  const number = orderNumber("SF", new Date("2026-11-23T12:00:00Z"), (n) => (asked.push(n), 7));
  expect(asked).toEqual([36, 36, 36, 36]);
  expect(number).toBe("SF-20261123-HHHH");
  expect(ORDER_NUMBER_ALPHABET).toHaveLength(36);
});

test("parse reads back what orderNumber writes, and refuses anything else", () => {
  const made = orderNumber("SF", new Date("2026-02-28T00:00:00Z"), () => 3);
  expect(parseOrderNumber(made)).toEqual({ prefix: "SF", date: "20260228", suffix: made.slice(-4) });
  for (const text of ["SF-20260230-ABCD", "sf-20261123-ABCD", "SF-2026112-ABCD", "SF-20261123-ABC", "SF-20261123-abcd", "SF_20261123_ABCD", ""]) {
    expect({ text, parsed: parseOrderNumber(text) }).toEqual({ text, parsed: null });
  }
});
