import { z } from "zod";

/** How the shop writes money and time wherever it shows them as JSON (the API, the CLI's --json). */
export const money = z.number().describe("US dollars, at most 2 decimals");
export const timestamp = z.iso.datetime().describe("ISO 8601, UTC");
/** A picture's address, wherever one is taken (a product's, a profile's, a provider's): http(s), at most 2048 characters. */
export const webUrl = z.url({ protocol: /^https?$/ }).max(2048);
