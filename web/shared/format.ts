const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** Dollars as the API gives them (a number with at most two decimals), as a price: $12.99. */
export function formatDollars(dollars: number): string {
  return usd.format(dollars);
}

/** Integer cents as a price: 1299 → $12.99. */
export function formatCents(cents: number): string {
  return usd.format(cents / 100);
}

const dateTime = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/** An ISO timestamp in the reader's time zone: Nov 25, 2026, 5:04 PM. */
export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

/** An enum value for reading: PENDING → Pending, requires_action → Requires action. */
export function humanize(value: string): string {
  const words = value.replaceAll("_", " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
