import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { DomainError } from "../../domain/errors.ts";
import { CUID2_PATTERN } from "../../domain/ids.ts";

/** What every provider's verifier shares: its refusals, a constant-time comparison, and reading what it verified. */
export const invalidSignature = () => new DomainError("webhook.invalid_signature", "Invalid signature");
export const malformed = (issue: string) => new DomainError("webhook.malformed", "Malformed event", { issue });

/** Whether two signatures are the same, in time that does not depend on where they differ. */
export function sameSignature(expected: string, given: string): boolean {
  const [a, b] = [Buffer.from(expected), Buffer.from(given)];
  return a.length === b.length && timingSafeEqual(a, b);
}

export function hmacSha256(key: string, ...parts: Array<string | Uint8Array>): Buffer {
  const hmac = createHmac("sha256", key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** The verified body as JSON, read as the provider sends it; anything else is malformed. */
export function readJson<T>(payload: Uint8Array, shape: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw malformed("the signed body is not JSON");
  }
  return readPart(value, shape, what);
}

/** An id as PostgreSQL stores it and a provider sends it: printable ASCII, no NUL. */
export const PROVIDER_ID = /^[\x21-\x7e]{1,255}$/;

/**
 * What the shop keeps of an event's text (its type, a carrier's status) is printable ASCII, as every
 * provider sends it: no NUL PostgreSQL would refuse, no lone surrogate, nothing that reads otherwise.
 */
export const printable = (max: number) => z.string().regex(new RegExp(`^[\\x20-\\x7e]{1,${max}}$`), "is not printable ASCII");
export const eventType = printable(255);
/** An ISO 4217 code, in the case each provider writes it. */
export const currencyCode = z.string().regex(/^[A-Za-z]{3}$/, "is not a currency code");

/** Reads the part of a verified event the shop acts on; a part not as the provider sends it is malformed. */
export function readPart<T>(value: unknown, shape: z.ZodType<T>, what: string): T {
  const read = shape.safeParse(value);
  if (!read.success) throw malformed(`${what}: ${read.error.issues[0]?.path.join(".")} ${read.error.issues[0]?.message}`);
  return read.data;
}

/** The shop's order id, when a provider gives back the one the shop gave it; null for anything else. */
export const orderIdOf = (value: string | null | undefined): string | null => (value && new RegExp(CUID2_PATTERN).test(value) ? value : null);
