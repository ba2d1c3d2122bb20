/**
 * Calendar dates and the instants they begin at in a time zone, from the zone rules the runtime
 * carries (Intl): pure, given the zone's name. A date is a day number (days since 1970-01-01), so
 * adding days, finding a Monday or a month's first day is integer arithmetic.
 */
export type DayNumber = number;

const DAY_MS = 86_400_000;

/** Milliseconds of a UTC wall time; any year, where Date.UTC reads the years 0 to 99 as 1900 to 1999. */
function utcMs(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(year, monthIndex, day);
  at.setUTCHours(hour, minute, second);
  return at.getTime();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The zone's canonical IANA name (`america/new_york` is America/New_York), or null for a name the
 * runtime does not know or an offset such as +05:30 (an offset has no daylight saving to follow).
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z]/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** How far the zone's clocks are ahead of UTC at an instant (negative west of Greenwich), in ms. */
function offsetAt(zone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  const part: Record<string, number> = {};
  let bc = false;
  for (const { type, value } of formatterOf(zone).formatToParts(new Date(whole))) {
    if (type === "era") bc = value === "BC";
    else part[type] = Number(value);
  }
  // The year 1 BC is the year 0 (and 2 BC is -1): a report from 0001-01-01 looks a day back into it.
  const year = bc ? 1 - part.year! : part.year!;
  return utcMs(year, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!) - whole;
}

/**
 * The first instant of a date in the zone. Where the clocks skip midnight (Santiago goes from 23:59
 * to 01:00 one night in September) the day begins when they jump; where midnight comes twice, at
 * the first (Temporal's "compatible" choice). A transition is assumed at most once within a day
 * either side, as every zone has it.
 */
export function startOfDay(zone: string, day: DayNumber): Date {
  const wall = day * DAY_MS;
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  // The same offset a day either side: no transition between (there is at most one), so midnight is there once.
  if (before === after) return new Date(wall - before);
  const candidates = [wall - before, wall - after].filter((instant) => offsetAt(zone, instant) === wall - instant);
  // No instant shows midnight: the clocks jumped over it, and the day begins at the jump.
  return new Date(candidates.length > 0 ? Math.min(...candidates) : wall - before);
}

/** A YYYY-MM-DD date of the Gregorian calendar, or null when the text is none (2026-02-30 is none). */
export function parseDay(text: string): DayNumber | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const at = new Date(utcMs(year, month - 1, day));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return null;
  return at.getTime() / DAY_MS;
}

/** The date the zone's clocks show at an instant. */
export const dayAt = (zone: string, instant: Date): DayNumber => Math.floor((instant.getTime() + offsetAt(zone, instant.getTime())) / DAY_MS);

export const formatDay = (day: DayNumber): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The Monday of the date's ISO week (weeks begin on Monday; 1970-01-01 was a Thursday). */
export const mondayOf = (day: DayNumber): DayNumber => day - ((((day + 3) % 7) + 7) % 7);

export function firstOfMonth(day: DayNumber): DayNumber {
  const at = new Date(day * DAY_MS);
  return utcMs(at.getUTCFullYear(), at.getUTCMonth(), 1) / DAY_MS;
}

export function firstOfNextMonth(day: DayNumber): DayNumber {
  const at = new Date(day * DAY_MS);
  return utcMs(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) / DAY_MS;
}
