import type { components } from "../api/schema.d.ts";
import { type Problem, problemOf } from "../api/client.ts";

export { api } from "../api/client.ts";
export type { Problem } from "../api/client.ts";
export type Schemas = components["schemas"];

export type Outcome<T> = { ok: true; data: T; status: number } | { ok: false; problem: Problem };

/** A problem the page finds itself, before asking the API, shown the way the API's are. */
export function localProblem(message: string, fields: Record<string, string> = {}): Problem {
  return { status: 0, message, fields, details: {}, retryAfterSeconds: null };
}

/**
 * Awaits a call of the typed client and says how it went, with the answer's status. A rule about one field that names it in `details.field` (a
 * tracking number) is put beside that field too. A network failure is a problem, never an exception.
 */
export async function run<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Outcome<T>> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    return { ok: false, problem: localProblem("The shop could not be reached. Check your connection and try again.") };
  }
  const { data, error, response } = result;
  if (response.ok) return { ok: true, data: data as T, status: response.status };
  const problem = problemOf(response, error);
  const field = problem.details.field;
  if (typeof field === "string" && !problem.fields[field]) problem.fields[field] = problem.message;
  return { ok: false, problem };
}
