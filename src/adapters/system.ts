import { randomInt } from "node:crypto";
import { customAlphabet } from "nanoid";
import type { Clock, Ids, Random } from "../application/ports/system.ts";

export const systemClock: Clock = { now: () => new Date(), sleep: (ms) => Bun.sleep(ms) };

const firstCharacter = customAlphabet("abcdefghijklmnopqrstuvwxyz", 1);
const rest = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 23);

/**
 * Ids of the CUID2 shape (24 lowercase letters and digits, first a letter), drawn uniformly from a
 * CSPRNG: about 119 random bits, so unguessable and collision-free at any realistic volume.
 * @paralleldrive/cuid2 makes the same shape through SHA-3 at ~100 µs an id, a third of a core at
 * the cart's write rate; nanoid takes ~1 µs.
 */
export const cuid2Ids: Ids = { next: () => firstCharacter() + rest() };

/** Uniform whole numbers from the operating system's CSPRNG. */
export const cryptoRandom: Random = { below: (below) => randomInt(below) };
