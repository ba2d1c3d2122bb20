import { z } from "zod";

/** How the shop writes money and time wherever it shows them as JSON (the API, the CLI's --json). */
export const money = z.number().describe("US dollars, at most 2 decimals");
export const timestamp = z.iso.datetime().describe("ISO 8601, UTC");
