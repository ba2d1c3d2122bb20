import { describe, expect, test } from "bun:test";
import { canonicalTimeZone, firstOfMonth, firstOfNextMonth, formatDay, mondayOf, parseDay, startOfDay } from "../../src/domain/time-zone.ts";

const day = (text: string) => parseDay(text)!;
const start = (zone: string, date: string) => startOfDay(zone, day(date)).toISOString();

describe("calendar dates", () => {
  test("YYYY-MM-DD dates of the Gregorian calendar are read; anything else is none", () => {
    expect(formatDay(day("2026-03-08"))).toBe("2026-03-08");
    expect(day("1970-01-02")).toBe(1);
    expect(formatDay(day("2028-02-29"))).toBe("2028-02-29");
    // Every four-digit year is itself (Date.UTC would read 0099 as 1999), to the calendar's ends.
    for (const text of ["0099-12-31", "0001-01-01", "0000-02-29", "9999-12-31"]) expect(formatDay(day(text))).toBe(text);
    expect(day("0100-01-01") - day("0099-12-31")).toBe(1);
    expect([formatDay(firstOfMonth(day("0050-06-15"))), formatDay(firstOfNextMonth(day("0099-12-15")))]).toEqual(["0050-06-01", "0100-01-01"]);
    for (const text of ["2026-02-29", "2026-02-30", "2026-13-01", "2026-3-8", "2026-03-08T00:00", "0099-02-29", "", "yesterday"]) {
      expect({ text, day: parseDay(text) }).toEqual({ text, day: null });
    }
  });

  test("a week begins on Monday; months on their first, December's next on the next year's first", () => {
    expect(formatDay(mondayOf(day("2026-03-04")))).toBe("2026-03-02");
    expect(formatDay(mondayOf(day("2026-03-02")))).toBe("2026-03-02");
    expect(formatDay(mondayOf(day("2026-03-08")))).toBe("2026-03-02");
    expect(formatDay(mondayOf(day("1970-01-01")))).toBe("1969-12-29");
    expect(formatDay(firstOfMonth(day("2028-02-29")))).toBe("2028-02-01");
    expect(formatDay(firstOfNextMonth(day("2026-12-31")))).toBe("2027-01-01");
  });
});

describe("time zones", () => {
  test("a name the runtime knows is kept in its canonical spelling; unknown names and bare offsets are refused", () => {
    expect(canonicalTimeZone("America/New_York")).toBe("America/New_York");
    expect(canonicalTimeZone("america/new_york")).toBe("America/New_York");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    for (const name of ["Mars/Olympus", "+05:30", "-0400", "", "New York"]) expect({ name, zone: canonicalTimeZone(name) }).toEqual({ name, zone: null });
  });

  test("New York: a day is 23 hours when the clocks go forward and 25 when they go back", () => {
    expect(start("America/New_York", "2026-03-08")).toBe("2026-03-08T05:00:00.000Z");
    expect(start("America/New_York", "2026-03-09")).toBe("2026-03-09T04:00:00.000Z");
    expect(start("America/New_York", "2026-11-01")).toBe("2026-11-01T04:00:00.000Z");
    expect(start("America/New_York", "2026-11-02")).toBe("2026-11-02T05:00:00.000Z");
  });

  test("Santiago skips midnight in September: that day begins at 01:00 local, when the clocks jump", () => {
    expect(start("America/Santiago", "2026-09-06")).toBe("2026-09-06T04:00:00.000Z");
    expect(start("America/Santiago", "2026-09-07")).toBe("2026-09-07T03:00:00.000Z");
    // In April 23:00 comes twice, midnight once.
    expect(start("America/Santiago", "2026-04-04")).toBe("2026-04-04T03:00:00.000Z");
    expect(start("America/Santiago", "2026-04-05")).toBe("2026-04-05T04:00:00.000Z");
  });

  test("zones off the hour, and UTC", () => {
    expect(start("Asia/Kolkata", "2026-03-08")).toBe("2026-03-07T18:30:00.000Z");
    // Lord Howe Island moves its clocks by half an hour.
    expect(start("Australia/Lord_Howe", "2026-10-04")).toBe("2026-10-03T13:30:00.000Z");
    expect(start("Australia/Lord_Howe", "2026-10-05")).toBe("2026-10-04T13:00:00.000Z");
    expect(start("UTC", "2026-03-08")).toBe("2026-03-08T00:00:00.000Z");
  });

  test("the calendar's ends: the years 0 to 99 are themselves, and the first day of the year 1 east of UTC begins in 1 BC", () => {
    expect(start("UTC", "0050-06-01")).toBe("0050-06-01T00:00:00.000Z");
    expect(start("America/New_York", "0099-12-31")).toBe("0099-12-31T04:56:02.000Z"); // local mean time, before zones
    expect(start("Asia/Tokyo", "0001-01-01")).toBe("0000-12-31T14:41:01.000Z");
    expect(start("Asia/Tokyo", "9999-12-31")).toBe("9999-12-30T15:00:00.000Z");
  });
});
