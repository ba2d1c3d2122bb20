import { Elysia } from "elysia";
import { HttpError, invalidRequest } from "../errors.ts";
import { inputProblems } from "./input-checks.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const ACCEPTED_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"];

const tooLarge = () => new HttpError(413, "Request body too large", { limitBytes: MAX_BODY_BYTES });
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the body, giving up as soon as it passes the limit (a chunked body declares no length). */
async function readBody(request: Request): Promise<Uint8Array> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
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

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "Request body is not valid UTF-8");
  }
}

async function parseBody(request: Request, contentType: string): Promise<unknown> {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const bytes = await readBody(request);
  // A body-less POST (sign-out, say) has nothing to parse, whatever it calls its content.
  if (bytes.byteLength === 0) return null;
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      return JSON.parse(text(bytes));
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError(400, "Malformed JSON in request body");
    }
  }
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text(bytes)));
  if (type === "multipart/form-data") {
    // Elysia hands over the media type alone; the boundary is in the header.
    const headers = { "content-type": request.headers.get("content-type") ?? contentType };
    const form = await new Response(bytes, { headers }).formData().catch(() => {
      throw new HttpError(400, "Malformed multipart body");
    });
    return Object.fromEntries([...form].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  if (type === "text/plain") return text(bytes);
  throw new HttpError(415, "Unsupported content type", { contentType: type || null, accepted: ACCEPTED_TYPES });
}

/**
 * Reads every body within the size limit, and refuses input no route could want (decisions §10)
 * before validation, so it is one clear 400 instead of a database error later.
 */
export function bodyReading() {
  return new Elysia({ name: "plumbing.body" })
    .onParse({ as: "global" }, ({ request, contentType }) => parseBody(request, contentType))
    .onTransform({ as: "global" }, ({ query, params, body }) => {
      const issues = [...inputProblems(query), ...inputProblems(params), ...inputProblems(body)];
      if (issues.length > 0) {
        const { error, details } = invalidRequest(issues);
        throw new HttpError(400, error, details);
      }
    });
}
