/** CUID2 as issued here: 24 characters, lowercase letters and digits, starting with a letter. */
export const CUID2_PATTERN = "^[a-z][a-z0-9]{23}$";
const cuid2 = new RegExp(CUID2_PATTERN);

export function isCuid2(value: string): boolean {
  return cuid2.test(value);
}

/** URL slugs: lowercase words joined by single hyphens. Every CUID2 is also slug-shaped. */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
