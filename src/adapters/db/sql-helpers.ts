const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/** A LIKE pattern that matches the text anywhere, with the user's own % and _ taken literally. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

export function startsWithPattern(text: string): string {
  return `${escapeLike(text)}%`;
}

type Counted = { total: string | number | bigint };

/**
 * Pages select `count(*) over ()` alongside their rows, so one round trip brings both. Only a page
 * past the end comes back empty and needs the separate count.
 */
export async function totalOf(rows: Counted[], offset: number, count: () => Promise<Counted>): Promise<number> {
  if (rows[0]) return Number(rows[0].total);
  return offset === 0 ? 0 : Number((await count()).total);
}

/** Whether PostgreSQL aborted the transaction to break a deadlock (SQLSTATE 40P01). */
export function isDeadlock(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "40P01";
}

/** Whether the error is a foreign-key violation (SQLSTATE 23503) of a reference to users. */
export function referencesMissingUser(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === "23503" && typeof constraint === "string" && constraint.endsWith("_user_id_fkey");
}

/** The constraint a unique violation (SQLSTATE 23505) broke, from pg or PGlite; null for any other error. */
export function violatedUniqueConstraint(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" ? (typeof constraint === "string" ? constraint : "unknown") : null;
}
