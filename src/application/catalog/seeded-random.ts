// Randomness that can be had again, for the demo history: the same seed gives the same numbers.

/** A uniform number in [0, 1). */
export type Random = () => number;

/** sfc32, seeded by splitmix32: 128 bits of state, so two seeds' sequences never run into each other. */
export function seededRandom(seed: number): Random {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let [a, b, c, d] = [split(), split(), split(), split()];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
}

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** An index by weight: [70, 20, 10] gives 0 seven times in ten. */
export function weighted(random: Random, weights: readonly number[]): number {
  let r = random() * weights.reduce((sum, w) => sum + w, 0);
  for (const [i, w] of weights.entries()) {
    r -= w;
    if (r < 0) return i;
  }
  return weights.length - 1;
}
const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";
/** A CUID2-shaped id (a letter, then 23 letters and digits) from the seeded sequence. */
export function idOf(random: Random): string {
  let id = ALPHANUMERIC[Math.floor(random() * 26)]!;
  for (let i = 0; i < 23; i++) id += ALPHANUMERIC[Math.floor(random() * 36)];
  return id;
}
