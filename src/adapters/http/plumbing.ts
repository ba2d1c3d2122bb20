import { Elysia, ValidationError } from "elysia";
import { DomainError } from "../../domain/errors.ts";
import type { Logger } from "../log.ts";
import { type ErrorBody, HttpError, invalidRequest, statusOf } from "./errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
export const API_VERSION = "1.0";

/** Route groups that answer in the `{ success, data, error, meta }` envelope (decisions §7). */
const ENVELOPE_PREFIXES = ["/api/products", "/api/users", "/api/locations"];
const usesEnvelope = (path: string) => ENVELOPE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));

const INCOMING_ID = /^[\w.:-]{1,64}$/;

interface RequestInfo {
  id: string;
  startedAt: number;
}

function classify(code: string | number, error: unknown): { status: number; body: ErrorBody } {
  // Elysia wraps whatever a parser throws in its own ParseError.
  if (code === "PARSE" && error instanceof Error && error.cause instanceof HttpError) error = error.cause;
  if (error instanceof DomainError) {
    return { status: statusOf[error.code], body: { error: error.message, details: error.details } };
  }
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message, details: error.details } };
  if (error instanceof ValidationError) {
    const issues = error.all.map((issue) => ({
      path: "path" in issue && issue.path ? String(issue.path).replace(/^\//, "").replaceAll("/", ".") : error.type,
      message: issue.summary ?? issue.message ?? "Invalid value",
    }));
    return { status: 400, body: invalidRequest(issues) };
  }
  if (code === "PARSE") return { status: 400, body: { error: "Malformed request body" } };
  if (code === "NOT_FOUND") return { status: 404, body: { error: "Not found" } };
  return { status: 500, body: { error: "Internal server error" } };
}

const tooLarge = () => new HttpError(413, "Request body too large", { limitBytes: MAX_BODY_BYTES });

/** Reads the body, giving up as soon as it passes the limit (a chunked body declares no length). */
async function readBody(request: Request): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const ACCEPTED_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"];

async function parseBody(request: Request, contentType: string): Promise<unknown> {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const bytes = await readBody(request);
  // A body-less POST (sign-out, say) has nothing to parse, whatever it calls its content.
  if (bytes.byteLength === 0) return null;
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new HttpError(400, "Malformed JSON in request body");
    }
  }
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(new TextDecoder().decode(bytes)));
  if (type === "multipart/form-data") {
    // Elysia hands over the media type alone; the boundary is in the header.
    const headers = { "content-type": request.headers.get("content-type") ?? contentType };
    const form = await new Response(bytes, { headers }).formData().catch(() => {
      throw new HttpError(400, "Malformed multipart body");
    });
    return Object.fromEntries([...form].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  if (type === "text/plain") return new TextDecoder().decode(bytes);
  throw new HttpError(415, "Unsupported content type", { contentType: type || null, accepted: ACCEPTED_TYPES });
}

/** Where a request's strings hold a NUL character, which PostgreSQL text cannot store. */
function nulCharacterPaths(value: unknown, path = ""): string[] {
  if (typeof value === "string") return value.includes("\u0000") ? [path] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => nulCharacterPaths(inner, path ? `${path}.${key}` : key));
}

/**
 * Cross-cutting HTTP behaviour: request ids, version header, body limits and parsing, the single
 * error mapper and the structured request log. Registered before every route.
 */
export function plumbing(logger: Logger) {
  const requests = new WeakMap<Request, RequestInfo>();
  return new Elysia({ name: "plumbing" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
      requests.set(request, { id, startedAt: performance.now() });
      set.headers["x-request-id"] = id;
      set.headers["x-api-version"] = API_VERSION;
      const declared = Number(request.headers.get("content-length") ?? 0);
      if (declared > MAX_BODY_BYTES) throw tooLarge();
    })
    .onParse({ as: "global" }, ({ request, contentType }) => parseBody(request, contentType))
    // Before validation, so that a NUL anywhere is one clear 400 instead of a database error later.
    .onTransform({ as: "global" }, ({ query, params, body }) => {
      const issues = [query, params, body]
        .flatMap((part) => nulCharacterPaths(part))
        .map((path) => ({ path, message: "must not contain a NUL character" }));
      if (issues.length > 0) {
        const { error, details } = invalidRequest(issues);
        throw new HttpError(400, error, details);
      }
    })
    .onError({ as: "global" }, ({ code, error, request, path, set }) => {
      const { status, body } = classify(code, error);
      if (status >= 500) {
        logger.error("request.failed", {
          requestId: requests.get(request)?.id,
          path,
          error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
        });
      }
      set.status = status;
      const retryAfter = body.details?.retryAfterSeconds;
      if (status === 429 && typeof retryAfter === "number") set.headers["retry-after"] = String(retryAfter);
      if (status === 405 && typeof body.details?.allow === "string") set.headers.allow = body.details.allow;
      return usesEnvelope(path) ? { success: false, data: null, ...body } : body;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path, responseValue }) => {
      const info = requests.get(request);
      // A handler that returns a Response (a redirect, say) sets its status there, not in `set`.
      const status = responseValue instanceof Response ? responseValue.status : set.status;
      logger.info("request", {
        requestId: info?.id,
        method: request.method,
        path,
        status: typeof status === "number" ? status : 200,
        durationMs: info ? Math.round((performance.now() - info.startedAt) * 100) / 100 : undefined,
      });
    });
}
