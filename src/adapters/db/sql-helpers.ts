const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/** A LIKE pattern that matches the text anywhere, with the user's own % and _ taken literally. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

export function startsWithPattern(text: string): string {
  return `${escapeLike(text)}%`;
}
