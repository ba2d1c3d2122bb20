import { z } from "zod";
import { dollarsToCents, isWholeCents } from "../../domain/money.ts";
import { CUID2_PATTERN } from "../../domain/ids.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../domain/paging.ts";

/** Shapes shared by several routes. Route-specific shapes live beside their routes. */

/** An id of the shop's (decisions §2: a path or body id of another shape is a 400), named in the issue: "must be an order id". */
export const idOf = (what: `a ${string}` | `an ${string}`) => z.string().regex(new RegExp(CUID2_PATTERN), `must be ${what} id`);

export { money, timestamp, webUrl } from "../presenters/shapes.ts";

/**
 * A name shown on one line (a product's, a person's), trimmed, up to `max` characters: a line break
 * in one splits the line a report or a list prints it on (found by an attack). Kept in Unicode's
 * composed form (NFC), as searches are made: `Rene\u0301e` typed on one keyboard is the `Renée`
 * another searches for (found by an attack).
 */
export const oneLineName = (max: number) =>
  z
    .string()
    .trim()
    .normalize("NFC")
    .max(max)
    .regex(/^[^\r\n\u2028\u2029]*$/, "must be one line");

/** A new password; its rules (length, the common-password list) are the use case's, which names the field when one breaks. */
export const newPassword = z.string().max(1024).describe("8 characters to 72 bytes, not one of the common passwords");

/** Dollars from a client, checked to whole cents here so a fraction of a cent is an ordinary validation issue. */
export const dollarsInCents = z
  .number()
  .min(0)
  .max(100_000)
  .refine(isWholeCents, "must have at most 2 decimals")
  .transform((dollars) => dollarsToCents(dollars))
  .describe("US dollars, at most 2 decimals");

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Query numbers arrive as text but are documented as the numbers they are (decisions §10), so generated clients type them as numbers. */
export const documentedAs = new WeakMap<z.ZodType, z.ZodType>();

/**
 * A number in the query string. Plain decimals only: unlike Number() (and z.coerce), an empty
 * value, hex, exponents and "Infinity" are refused instead of quietly becoming some number.
 */
export function queryNumber<T extends z.ZodType<unknown, number>>(schema: T, shape = { pattern: DECIMAL, message: "must be a decimal number" }) {
  const text = z.string().regex(shape.pattern, shape.message).transform(Number).pipe(schema);
  documentedAs.set(text, schema);
  return text;
}

/**
 * Text in the query string, where a key given more than once stands for the list of its values:
 * they are joined with commas, so `status=PENDING&status=CONFIRMED` reaches its field as `PENDING,CONFIRMED`.
 * (Every value is its text as sent, commas included: see queryValues.)
 */
export function queryText<T extends z.ZodType>(field: T) {
  const read = z.preprocess((value) => (Array.isArray(value) ? value.join(",") : value), field).optional();
  documentedAs.set(read, field);
  return read;
}

/** Dollars in the query string: read as text, so at most two decimals means what it says (0.30000000000000004 is not 0.30). */
export const queryDollars = queryNumber(dollarsInCents, { pattern: /^\d+(\.\d{1,2})?$/, message: "must have at most 2 decimals" });

export const pageQuery = {
  page: queryNumber(z.number().int().min(1)).default(1),
  limit: queryNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).default(DEFAULT_PAGE_SIZE),
};

/**
 * Declares that a route takes a JSON body. Plumbing's parser still reads every body (with the size
 * limit); the declaration is what gives the body schema its content type in the OpenAPI document.
 */
export const JSON_BODY = { parse: "json" } as const;

/**
 * Declares, in a route's `detail`, that its answer sets the session cookie (a sign-in) or clears it
 * (a sign-out): the OpenAPI document then shows that answer's Set-Cookie header.
 */
export const sessionCookie = (change: "set" | "clear"): object => ({ "x-session-cookie": change });

/** A redirect: no body; where it leads is in the Location header. */
export const redirectResponse = (to: string) => z.unknown().describe(`Redirect (Location header) ${to}`);

export const pageMeta = z.object({ total: z.int(), page: z.int(), limit: z.int() }).meta({ id: "PageMeta" });

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, error: z.null() });
}

export function pagedEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), data: z.array(item), error: z.null(), meta: pageMeta });
}

export const errorBody = z
  .object({
    error: z.string(),
    details: z.record(z.string(), z.unknown()).optional().describe("for invalid input: { issues: [{ path, message }] }, at most 20"),
  })
  .meta({ id: "Error" });

export const envelopeError = z
  .object({
    success: z.literal(false),
    data: z.null(),
    error: z.string(),
    details: z.record(z.string(), z.unknown()).optional().describe("for invalid input: { issues: [{ path, message }] }, at most 20"),
  })
  .meta({ id: "EnvelopeError" });
