import createClient from "openapi-fetch";
import type { paths } from "./schema.d.ts";

/** The public API, typed from the shop's own OpenAPI document; same origin, the session cookie sent along. */
export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });

/**
 * A fresh Idempotency-Key: 128 random bits in hex. From `crypto.getRandomValues`, which every
 * browser has on any page; `crypto.randomUUID` exists only in a secure context (https, localhost),
 * and a shop served over plain http on a LAN address would have no checkout.
 */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What went wrong with a call, ready to show: the message, the messages per field, and when to try again. */
export interface Problem {
  status: number;
  message: string;
  /** Messages by the field's path as the API names it (`email`, `shippingAddress.postalCode`). */
  fields: Record<string, string>;
  /** The `details` the API sent, for a page that knows what one error means (a declined card's code). */
  details: Record<string, unknown>;
  /** Seconds from Retry-After, on a 429 or 503. */
  retryAfterSeconds: number | null;
}

interface Issue {
  path?: unknown;
  message?: unknown;
}

/** "in 15 minutes", "in 1 second": how long a refusal lasts, in words. */
export function retryAfterText(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (seconds < 60) return `in ${plural(seconds, "second")}`;
  if (seconds < 3600) return `in ${plural(Math.ceil(seconds / 60), "minute")}`;
  return `in ${plural(Math.ceil(seconds / 3600), "hour")}`;
}

/** The error envelope `{ error, details }` (and a 429's Retry-After) of a failed answer. */
export function problemOf(response: Response, body: unknown): Problem {
  const envelope = (typeof body === "object" && body !== null ? body : {}) as { error?: unknown; details?: unknown };
  const details = (typeof envelope.details === "object" && envelope.details !== null ? envelope.details : {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  const issues = Array.isArray(details.issues) ? (details.issues as Issue[]) : [];
  for (const issue of issues) {
    if (typeof issue.path === "string" && typeof issue.message === "string") fields[issue.path] ??= issue.message;
  }
  const header = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
  const retryAfterSeconds = Number.isFinite(header) && header >= 0 ? header : null;
  let message = typeof envelope.error === "string" && envelope.error ? envelope.error : `The shop answered ${response.status}`;
  // Every 429 has the spec's one text; what refused, when not the rate limit, is the details' reason.
  if (response.status === 429 && typeof details.reason === "string" && details.reason) message = `${details.reason}.`;
  if (response.status === 429 && retryAfterSeconds !== null) message = `${message} You can try again ${retryAfterText(retryAfterSeconds)}.`;
  return { status: response.status, message, fields, details, retryAfterSeconds };
}

/** A call's failure as a Problem: the API's answer, or the network's. */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

const unreachable: Problem = {
  status: 0,
  message: "The shop could not be reached. Check your connection and try again.",
  fields: {},
  details: {},
  retryAfterSeconds: null,
};

/** The data of a successful call, or an ApiError carrying the Problem. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(unreachable);
  }
  if (!result.response.ok) throw new ApiError(problemOf(result.response, result.error));
  return result.data as T;
}

/** Any failure as a Problem, for a page to show. */
export function problemFrom(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem;
  return { ...unreachable, message: error instanceof Error ? error.message : String(error) };
}
