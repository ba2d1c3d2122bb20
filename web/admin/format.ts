import { formatDateTime, formatDollars, humanize } from "../shared/format.ts";

/** How the back office writes money, times and statuses: the shop's own formats, and a few of its own. */

const whole = new Intl.NumberFormat("en-US");
const day = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });

/** Dollars as the API gives them (a number with at most two decimals). */
export const money = formatDollars;
export const count = (n: number): string => whole.format(n);
/** An ISO 8601 time, in the browser's zone. */
export const when = (iso: string | null | undefined): string => (iso ? formatDateTime(iso) : "—");
/** A calendar date (YYYY-MM-DD), as it is: no zone moves it to another day. */
export const date = (isoDate: string): string => day.format(new Date(`${isoDate}T00:00:00Z`));
/** PENDING → Pending. */
export const label = humanize;

/** A query string of the values given, blank ones left out. */
export function queryOf(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && String(value) !== "") params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Today's date (YYYY-MM-DD) in the browser's zone, and the one `days` before it. */
export function isoDay(offsetDays = 0, from = new Date()): string {
  const d = new Date(from.getFullYear(), from.getMonth(), from.getDate() + offsetDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}
