import { MIMEType } from "node:util";
import { Elysia } from "elysia";
import { HttpError, invalidRequest } from "../errors.ts";
import { canonicalJson } from "./canonical-json.ts";
import { inputProblems, issue } from "./input-checks.ts";
import { clientGone, requestInfo } from "./request-context.ts";
import type { RouteTable } from "./route-table.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

const UTF8_CHARSETS = new Set(["utf-8", "utf8", "us-ascii", "ascii"]);

/** The charset a Content-Type names, read as browsers read it (the WHATWG MIME parser: node:util's MIMEType); null for none. */
function charsetOf(contentType: string | null): string | null {
  if (!contentType) return null;
  try {
    return new MIMEType(contentType).params.get("charset")?.toLowerCase() ?? null;
  } catch {
    // Not a media type at all: the media-type check refuses it.
    return null;
  }
}
const tooLarge = () => new HttpError(413, "Request body too large", { limitBytes: MAX_BODY_BYTES });
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body's length as the request declares it; null when it declares none. Bun passes a
 * Content-Length sent more than once with one value on as "N, N" (the message is framed by N, as
 * RFC 9110 allows): that is N. Anything else that is not a plain count is NaN, so no check can take
 * it for a small body, nor a body of known length.
 */
function declaredLength(headers: Headers): number | null {
  const value = headers.get("content-length");
  if (value === null) return null;
  const [only, ...others] = new Set(value.split(",").map((part) => part.trim()));
  return others.length === 0 && /^\d+$/.test(only ?? "") ? Number(only) : Number.NaN;
}

/**
 * Reads a body, giving up as soon as it passes the limit. A body of a declared length within it is
 * read whole at once (HTTP's framing holds it to that length, checked again once read); any other
 * (chunked, or a length that is no plain count) is read chunk by chunk.
 */
export async function readBody(request: Request): Promise<Uint8Array> {
  const declared = declaredLength(request.headers);
  if (declared !== null && declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array();
  if (declared !== null && Number.isFinite(declared)) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  // Bun takes what follows a chunked body in the same read (its trailer) for a request of its own,
  // answers that a bare 400 and closes the connection; the request's signal says so a turn of the
  // event loop later. Waited for, so a request whose client was told 400 is not run (found by an attack).
  await new Promise((resolve) => setImmediate(resolve));
  if (request.signal.aborted) throw clientGone();
  return Buffer.concat(chunks);
}

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "Request body is not valid UTF-8");
  }
}

function json(bytes: Uint8Array): unknown {
  const source = text(bytes);
  try {
    return JSON.parse(source);
  } catch {
    throw new HttpError(400, "Malformed JSON in request body");
  }
}

/** A URL-encoded form, decoded strictly: URLSearchParams turns %FF or an encoded lone surrogate into U+FFFD without a word. */
function urlEncoded(bytes: Uint8Array): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of text(bytes).split("&")) {
    if (pair === "") continue;
    const [name = "", value = ""] = pair.split(/=(.*)/s);
    try {
      fields[decodeURIComponent(name.replaceAll("+", " "))] = decodeURIComponent(value.replaceAll("+", " "));
    } catch {
      throw new HttpError(400, "Request body is not valid UTF-8");
    }
  }
  return fields;
}

async function decode(bytes: Uint8Array, type: string, contentType: string): Promise<unknown> {
  if (isJson(type)) return json(bytes);
  if (type === "application/x-www-form-urlencoded") return urlEncoded(bytes);
  if (type === "multipart/form-data") {
    // The parts are read as text, and FormData would replace bytes that are not UTF-8: the whole body must be.
    text(bytes);
    // Elysia hands over the media type alone; the boundary is in the header.
    // A request's bytes, never shared memory (the DOM's BodyInit, typed for the web pages, asks so).
    const form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData().catch(() => {
      throw new HttpError(400, "Malformed multipart body");
    });
    return Object.fromEntries([...form].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  return text(bytes);
}

const mediaType = (contentType: string) => contentType.split(";")[0]?.trim().toLowerCase() ?? "";
const isJson = (type: string) => type === "application/json" || type.endsWith("+json");

/** A JSON body sent to a route that takes none: every field of it is unknown (decisions §10); `{}` says nothing. */
function refuseUnexpected(body: unknown): null {
  const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
  if (isObject && Object.keys(body).length === 0) return null;
  const issues = isObject ? Object.keys(body).map((key) => issue(key, "is not a known field")) : [issue("", "this route takes no body")];
  const { error, details } = invalidRequest(issues);
  throw new HttpError(400, error, details);
}

/**
 * The query string's values as sent: each one its decoded text, and a key given more than once the
 * array of its values. Elysia's reader for zod schemas splits a value at its commas and reads one in
 * brackets or braces as JSON, so a search for "Smith, Ann" reached its field as an array (a 400:
 * "expected string") and `q=["x"]` searched for x. Null-prototype, so `__proto__` is a key like any other.
 */
export function queryValues(url: string): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = Object.create(null);
  const start = url.indexOf("?");
  if (start === -1) return values;
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    const before = values[key];
    // Pushed, not copied: a key repeated n times would otherwise cost n² (8,000 repeats of `a`, 0.2 s on /api/health; found by an attack).
    if (before === undefined) values[key] = value;
    else if (Array.isArray(before)) before.push(value);
    else values[key] = [before, value];
  }
  return values;
}

/**
 * Reads every body within the size limit, in a media type its route declares (JSON unless it says
 * otherwise; a route that takes no body reads none), and refuses input no route could want
 * (decisions §10) before validation, so it is one clear 400 instead of a database error later. A
 * route that takes its body raw (a webhook's, for its signature) is left alone.
 */
export function bodyReading(routes: RouteTable) {
  return (
    new Elysia({ name: "plumbing.body" })
      // Refused here, after CORS and the rate limit have had the request, so the answer is as any other's:
      // a GET's or HEAD's body (nothing reads it, so nothing could say what in it is unknown), and a
      // query string that is not UTF-8 (the router would read %FF or an encoded lone surrogate as U+FFFD).
      .onRequest(({ request }) => {
        if (
          (request.method === "GET" || request.method === "HEAD") &&
          ((declaredLength(request.headers) ?? 0) !== 0 || request.headers.has("transfer-encoding"))
        ) {
          throw new HttpError(400, `A ${request.method} request takes no body`);
        }
        const query = request.url.indexOf("?");
        if (query !== -1 && request.url.includes("%", query)) {
          try {
            decodeURIComponent(request.url.slice(query + 1));
          } catch {
            throw new HttpError(400, "Query string is not valid UTF-8");
          }
        }
      })
      .onParse({ as: "global" }, async ({ request, contentType, route }) => {
        const facts = routes.facts(request.method, route);
        if (facts?.raw) return null;
        const bytes = await readBody(request);
        // A body-less POST (sign-out, say) has nothing to parse, whatever it calls its content.
        if (bytes.byteLength === 0) return null;
        const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
        if (encoding && encoding !== "identity")
          throw new HttpError(415, "Unsupported content encoding", { contentEncoding: encoding, accepted: ["identity"] });
        // Bodies are read as UTF-8 (JSON is nothing else, RFC 8259): a body that says it is in another charset
        // (ASCII aside, which is UTF-8 too) is not taken as one.
        const charset = charsetOf(request.headers.get("content-type"));
        if (charset && !UTF8_CHARSETS.has(charset)) throw new HttpError(415, "Unsupported content type", { charset, accepted: ["utf-8"] });
        const type = mediaType(contentType);
        const accepts = facts?.accepts ?? [];
        if (accepts.length === 0 && isJson(type)) return refuseUnexpected(json(bytes));
        if (!accepts.some((accepted) => accepted === type || (accepted === "application/json" && isJson(type)))) {
          throw new HttpError(415, "Unsupported content type", { contentType: type || null, accepted: accepts });
        }
        return decode(bytes, type, request.headers.get("content-type") ?? type);
      })
      .onTransform({ as: "global" }, (context) => {
        const { request, params, body } = context;
        const query = queryValues(request.url);
        // Typed as one string a key, as Elysia reads a query for no schema; a repeated key is a list here.
        (context as { query: unknown }).query = query;
        const issues = [...inputProblems(query), ...inputProblems(params), ...inputProblems(body)];
        if (issues.length > 0) {
          const { error, details } = invalidRequest(issues);
          throw new HttpError(400, error, details);
        }
        // Decisions §15: a repeat is the same request when its parameters are, whatever their order and spacing.
        const info = requestInfo(request);
        if (info && request.headers.has("idempotency-key")) info.bodyDigest = new Bun.CryptoHasher("sha256").update(canonicalJson(body)).digest("hex");
      })
  );
}
