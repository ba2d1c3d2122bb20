import { Elysia, ValidationError } from "elysia";
import { DomainError, TRY_AGAIN, failureOf } from "../../../domain/errors.ts";
import type { Logger } from "../../../application/ports/system.ts";
import { type ErrorBody, HttpError, invalidRequest, statusOf } from "../errors.ts";
import { MAX_ISSUES, type ValidationIssue, issue } from "./input-checks.ts";
import { requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";

type StandardIssue = {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  keys?: unknown;
  code?: unknown;
  maximum?: unknown;
  minimum?: unknown;
};
type StandardSchema = { "~standard": { validate(value: unknown): { issues?: readonly StandardIssue[] } | Promise<unknown> } };

const dotted = (path: StandardIssue["path"] = []) => path.map((part) => String(typeof part === "object" ? part.key : part)).join(".");

/**
 * A value past two bounds on one side, a whole number's safe range and the field's own, is told
 * the field's: "must be at most 99", not also "must be at most 9007199254740991" (found by trying it).
 */
function looserBound(found: StandardIssue, issues: readonly StandardIssue[]): boolean {
  const side = found.code === "too_big" ? "maximum" : found.code === "too_small" ? "minimum" : null;
  if (!side) return false;
  const at = dotted(found.path);
  return issues.some(
    (other) =>
      other !== found &&
      other.code === found.code &&
      dotted(other.path) === at &&
      (side === "maximum" ? Number(other.maximum) < Number(found.maximum) : Number(other.minimum) > Number(found.minimum)),
  );
}

/**
 * The issues of a failed validation, each naming its field. Routes validate with zod (a Standard
 * Schema), whose issues Elysia's `all` flattens; read directly, an unknown field becomes an issue
 * of its own at its own path (zod reports them together, in `keys`).
 */
function validationIssues(error: ValidationError): ValidationIssue[] {
  const validator = error.validator as Partial<StandardSchema> & { schema?: Partial<StandardSchema> };
  const schema = validator["~standard"] ? validator : validator.schema;
  const result = schema?.["~standard"]?.validate(error.value);
  if (!result || result instanceof Promise || !("issues" in result) || !result.issues) {
    return error.all.map((found) => issue("path" in found && found.path !== "root" ? String(found.path) : "", found.summary ?? "Invalid value"));
  }
  const query = error.type === "query" ? (error.value as Record<string, unknown>) : null;
  const issues = result.issues.filter((found, _, all) => !looserBound(found, all));
  return issues.slice(0, MAX_ISSUES).flatMap((found) => {
    const at = dotted(found.path);
    // A query key given twice where its field takes one value (a list is the query's only array, and
    // zod's issue is then its type). A field that joins the values into a list (queryText) has its
    // own issue with the list, which names what is wrong (found by an attack: "must be given once").
    if (query && found.path?.length === 1 && Array.isArray(query[at]) && found.code === "invalid_type") return [issue(at, "must be given once")];
    if (!Array.isArray(found.keys)) return [issue(at, found.message)];
    return found.keys.map((key) => issue(at ? `${at}.${String(key)}` : String(key), "is not a known field"));
  });
}

function classify(code: string | number, error: unknown, allowed: string[]): { status: number; body: ErrorBody } {
  // Elysia wraps whatever a parser throws in its own ParseError.
  if (code === "PARSE" && error instanceof Error && error.cause instanceof HttpError) error = error.cause;
  if (error instanceof DomainError) {
    return { status: statusOf[error.code], body: { error: error.message, details: error.details } };
  }
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message, details: error.details } };
  // An answer of the shop's own that breaks its schema is the shop's failure, not the request's (found by an attack).
  if (error instanceof ValidationError && error.type === "response") return { status: 500, body: { error: "Internal server error" } };
  if (error instanceof ValidationError) return { status: 400, body: invalidRequest(validationIssues(error)) };
  if (code === "PARSE") return { status: 400, body: { error: "Malformed request body" } };
  if (code === "NOT_FOUND" && allowed.length > 0) {
    return { status: 405, body: { error: "Method not allowed", details: { allow: [...allowed, "OPTIONS"].join(", ") } } };
  }
  if (code === "NOT_FOUND") return { status: 404, body: { error: "Not found" } };
  return { status: 500, body: { error: "Internal server error" } };
}

/**
 * The one error mapper: every failure becomes `{ error, details? }` with its status (a 500 never
 * shows its cause; it is logged with the request id). A known path asked with a method it does not
 * serve is a 405 naming the methods it does. Every error is in the envelope where the path's routes
 * use it, also one raised before any route was reached (a 405, the rate limit's 429, a GET with a
 * body), whose route's envelope macro never runs; the macro, where it runs, finds it wrapped already.
 */
export function errorMapper(logger: Logger, routes: RouteTable) {
  return new Elysia({ name: "plumbing.errors" }).onError({ as: "global" }, ({ code, error, request, path, set }) => {
    const classified = classify(code, error, code === "NOT_FOUND" ? routes.methodsAt(path) : []);
    const { status } = classified;
    const info = requestInfo(request);
    if (info && error instanceof DomainError && TRY_AGAIN.has(error.code)) info.tryAgain = true;
    let { body } = classified;
    const retryAfter = body.details?.retryAfterSeconds;
    if ((status === 429 || status === 503) && typeof retryAfter === "number") set.headers["retry-after"] = String(retryAfter);
    if (status === 503 && error instanceof DomainError) {
      // A refusal the shop chose (busy, not configured, its database away), not a failure: no stack, at warn.
      logger.warn("request.refused", { requestId: info?.id, path, code: error.code, ...failureOf(error) });
    } else if (status >= 500) {
      logger.error("request.failed", {
        requestId: info?.id,
        path,
        error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
        details: body.details,
      });
    }
    // What failed inside (a processor's reason, say) is for the log, not the caller.
    if (status >= 500) body = { error: body.error };
    set.status = status;
    if (status === 405) set.headers.allow = String(body.details?.allow);
    if (routes.envelopeAt(path)) return { success: false, data: null, ...body };
    return body;
  });
}
