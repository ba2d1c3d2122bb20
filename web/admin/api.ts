import createClient from "openapi-fetch";
import type { components, paths } from "../api/schema";

/** The shop's API on this origin; the session cookie goes with every call. */
export const api = createClient<paths>({ baseUrl: "" });

export type Schemas = components["schemas"];

/** What went wrong with a call, as a page shows it: a message, and messages beside the fields the API named. */
export interface Problem {
  status: number;
  message: string;
  fields: Record<string, string>;
}

export type Outcome<T> = { ok: true; data: T; status: number } | { ok: false; problem: Problem };

interface ErrorBody {
  error?: string;
  details?: { issues?: Array<{ path?: string; message?: string }>; field?: unknown } & Record<string, unknown>;
}

/** A wait in seconds said the way a person reads it. */
export function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
}

/** The problem an error answer describes: its message, its issues by field, and for a 429 when to try again. */
export function problemOf(response: Response, body: unknown): Problem {
  const error = (body ?? {}) as ErrorBody;
  const fields: Record<string, string> = {};
  for (const issue of error.details?.issues ?? []) {
    const path = issue.path ?? "";
    if (path && issue.message && !fields[path]) fields[path] = issue.message;
  }
  // A rule about one field names it in details.field (a tracking number a move needs, say).
  if (typeof error.details?.field === "string" && error.error && !fields[error.details.field]) fields[error.details.field] = error.error;
  let message = error.error ?? `The shop answered ${response.status} ${response.statusText}`.trim();
  if (response.status === 429) {
    const retryAfter = Number(response.headers.get("retry-after"));
    if (Number.isFinite(retryAfter) && retryAfter > 0) message = `${message} Try again in ${waitText(retryAfter)}.`;
  }
  return { status: response.status, message, fields };
}

/** Awaits an openapi-fetch call and says how it went. A network failure is a problem too, never an exception. */
export async function run<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Outcome<T>> {
  try {
    const { data, error, response } = await call;
    if (response.ok) return { ok: true, data: data as T, status: response.status };
    return { ok: false, problem: problemOf(response, error) };
  } catch {
    return { ok: false, problem: { status: 0, message: "The shop could not be reached. Check the connection and try again.", fields: {} } };
  }
}
