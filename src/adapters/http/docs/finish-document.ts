import { SESSION_LIFETIME_SECONDS } from "../../../domain/session.ts";
import { PASSWORD_ENDPOINTS, unlimited } from "../plumbing/rate-limit.ts";
import { envelopeError, errorBody } from "../schemas.ts";
import { toJsonSchema } from "./json-schema.ts";

type Json = Record<string, unknown>;
type Operation = Json & { security?: Json[]; parameters?: Array<{ in: string }>; requestBody?: unknown; responses?: Record<string, unknown> };
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: Json;
}

/** The answers that can happen across routes, named once (decisions §10). */
const ERROR_RESPONSES = {
  BadRequest: [
    400,
    "Invalid input: `details.issues` names each field (at most 20); or a request no route reads, on any route: a query string that is not UTF-8, a GET with a body",
  ],
  Unauthorized: [401, "No valid session: `Unauthorized - authentication required`"],
  Forbidden: [403, "Signed in, but not allowed; or a cookie-authenticated change from a foreign origin"],
  NotFound: [404, "No such resource"],
  MethodNotAllowed: [405, "This path does not take this method (a provider's callback: not the way that provider returns); Allow names those it takes"],
  Conflict: [409, "Conflicts with what exists"],
  PayloadTooLarge: [413, "Body over 1 MB"],
  UnsupportedMediaType: [415, "A body in a media type the route does not read"],
  IdempotencyKeyReused: [422, "This Idempotency-Key was used with a different request"],
  TooManyRequests: [
    429,
    "`Rate limit exceeded. Please try again later.`: the rate limit, or a sign-in limit, reached (`details.reason` says which sign-in limit); see Retry-After",
  ],
  TooManyPasswordChecks: [
    429,
    "`Rate limit exceeded. Please try again later.`; see Retry-After. This client reached the endpoint's rate limit, or the password routes' own, tighter one (PASSWORD_RATE_LIMIT_MAX per window for sign-in, registration and password change together); or, saying so in `details.reason`, the e-mail is locked after 5 failed sign-ins in 15 minutes, or a password check from this client is already waiting (one at a time per client)",
  ],
  InternalError: [500, "Something failed on the shop's side; the answer never says what (it is logged with the request id)"],
  ServiceUnavailable: [
    503,
    "Refused for now, nothing done that was not done before (try again after Retry-After): the shop's database does not answer (a restart, a lost connection), the password checks are busy, or a webhook's provider is not configured",
  ],
} as const;
/** A webhook's 400s, which name no fields: its body is the provider's. */
const INVALID_EVENT = {
  description: "`Invalid signature` (missing, wrong or stale), or `Malformed event` (a signed event the shop acts on, not as the provider sends it)",
};
type ErrorResponse = keyof typeof ERROR_RESPONSES;
// A status's first name is its general answer (429: TooManyRequests).
const NAME_OF_STATUS = new Map(
  Object.entries(ERROR_RESPONSES)
    .reverse()
    .map(([name, [status]]) => [String(status), name as ErrorResponse]),
);

/**
 * Moves every `$defs` entry into components.schemas (named by its id), points refs there, and drops
 * `$schema`. Each route's schemas are converted on their own, so one name can come from several
 * routes: it must name the same shape each time, or a client would be typed by whichever came last.
 */
function liftDefinitions(value: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((item) => liftDefinitions(item, schemas));
  if (value === null || typeof value !== "object") return value;
  const result: Json = {};
  for (const [key, inner] of Object.entries(value as Json)) {
    if (key === "$schema") continue;
    if (key === "$defs") {
      for (const [name, definition] of Object.entries(inner as Json)) {
        const lifted = liftDefinitions(definition, schemas) as Json;
        if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(lifted)) throw new Error(`Two different shapes are named ${name}`);
        schemas[name] = lifted;
      }
      continue;
    }
    result[key] = key === "$ref" && typeof inner === "string" ? inner.replace("#/$defs/", "#/components/schemas/") : liftDefinitions(inner, schemas);
  }
  return result;
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" } });
/** Decisions §9: what a limited answer says of the limit. */
const LIMIT_HEADERS = {
  "Retry-After": integerHeader(
    "Seconds to wait: the window's length (rate limit), what is left of the sign-in lockout, or 1 (this client's password check still waiting)",
  ),
  "X-RateLimit-Limit": integerHeader(
    "Requests allowed per window for this client and endpoint; on the password routes, of whichever limit the request is nearer the end of (the endpoint's, or theirs together)",
  ),
  "X-RateLimit-Remaining": integerHeader("Requests left in this window"),
  "X-RateLimit-Reset": integerHeader("When the window ends, in Unix seconds"),
};

/**
 * The Set-Cookie header of an answer that sets the session cookie (a sign-in) or clears it (a
 * sign-out), written as the shop writes it, so a generated client knows where the token is.
 */
function sessionCookieHeaders({ publicUrl, cookieName }: { publicUrl: string; cookieName: string }) {
  const secure = publicUrl.startsWith("https://");
  const attributes = `Path=/; HttpOnly; ${secure ? "Secure; " : ""}SameSite=Lax`;
  const days = SESSION_LIFETIME_SECONDS / 86_400;
  return {
    set: {
      description: `The session cookie \`${cookieName}\`: the session token (the same one \`Authorization: Bearer\` takes), kept ${days} days (Max-Age ${SESSION_LIFETIME_SECONDS}); HttpOnly, SameSite=Lax, Path=/${secure ? ", Secure" : ""}`,
      schema: { type: "string" },
      example: `${cookieName}=<token>; Max-Age=${SESSION_LIFETIME_SECONDS}; ${attributes}`,
    },
    clear: {
      description: `Clears the session cookie \`${cookieName}\` (empty, Max-Age 0)`,
      schema: { type: "string" },
      example: `${cookieName}=; Max-Age=0; ${attributes}`,
    },
  };
}
type SessionCookieHeaders = ReturnType<typeof sessionCookieHeaders>;

const ERROR_HEADERS: Partial<Record<ErrorResponse, Json>> = {
  MethodNotAllowed: { Allow: { description: "The methods the path takes", schema: { type: "string" } } },
  TooManyRequests: LIMIT_HEADERS,
  TooManyPasswordChecks: LIMIT_HEADERS,
  ServiceUnavailable: {
    "Retry-After": integerHeader(
      "Seconds to wait: 2 when the database does not answer, 1 when the password checks are busy (none for a webhook not configured)",
    ),
  },
};

function responsesFor(prefix: "" | "Envelope") {
  const schema = `#/components/schemas/${prefix ? "EnvelopeError" : "Error"}`;
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([name, [, description]]) => {
      const headers = ERROR_HEADERS[name as ErrorResponse];
      return [`${prefix}${name}`, { description, ...(headers ? { headers } : {}), content: { "application/json": { schema: { $ref: schema } } } }];
    }),
  );
}

const ERROR_SCHEMAS = new Set(["#/components/schemas/Error", "#/components/schemas/EnvelopeError"]);
const isErrorBody = (response: unknown) =>
  ERROR_SCHEMAS.has(String((response as { content?: { "application/json"?: { schema?: { $ref?: unknown } } } }).content?.["application/json"]?.schema?.$ref));

/**
 * What the generator does not know, added to every operation from its own shape: its security
 * (routes that need a session say so through the auth macros; the rest are public), and the error
 * answers it can give (400 always: before any route reads it, a query string that is not UTF-8 or a
 * GET's body is refused; 401 with a required session, 404 with a path id, 413 and
 * 415 for any method that may carry a body (415 not where the body is taken raw), 429 wherever the
 * rate limit applies, with the password limits' reasons where passwords are checked, 500 and 503
 * always: any route may find the database away),
 * in the envelope where the route uses it. Error answers a route declares itself point to the
 * named responses too. Markers in a route's `detail` add headers: `x-total-count`,
 * `x-session-cookie` (the answer sets or clears the session cookie), and `x-retry-after` (its own
 * 503 says when to ask again); `x-csv` and `x-html` say the answer is a CSV download or an HTML page.
 */
function finishOperation(path: string, method: string, operation: Operation, cookieHeaders: SessionCookieHeaders): void {
  const envelope = operation["x-envelope"] === true;
  // A route that takes its body raw (a webhook's, as signed) reads it whatever its media type.
  const raw = operation["x-raw-body"] === true;
  const counted = operation["x-total-count"] === true;
  const sessionCookie = operation["x-session-cookie"] as keyof SessionCookieHeaders | undefined;
  const csv = operation["x-csv"] === true;
  const retryAfter = operation["x-retry-after"] === true;
  const html = operation["x-html"] === true;
  delete operation["x-csv"];
  delete operation["x-retry-after"];
  delete operation["x-html"];
  delete operation["x-envelope"];
  delete operation["x-raw-body"];
  delete operation["x-total-count"];
  delete operation["x-session-cookie"];
  operation.security ??= [];
  operation.responses ??= {};
  const responses = operation.responses;
  const refer = (name: ErrorResponse) => ({ $ref: `#/components/responses/${envelope ? "Envelope" : ""}${name}` });
  for (const [status, response] of Object.entries(responses)) {
    // A route describes its answer on the answer's schema (zod's describe); the words belong to the answer, the schema stays the shape.
    const content = (response as { content?: Record<string, { schema?: Json }> }).content ?? {};
    for (const { schema } of Object.values(content)) if (schema && schema.description === (response as Json).description) delete schema.description;
    const name = NAME_OF_STATUS.get(status);
    // Only the shop's error bodies are named answers: a route's own shape (health's 503) stays its own.
    if (!name || !isErrorBody(response)) continue;
    responses[status] =
      raw && status === "400" ? { ...INVALID_EVENT, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } } : refer(name);
  }
  // A redirect has no body (the generator gives every answer one): where it leads is its Location.
  for (const [status, response] of Object.entries(responses) as [string, Json][]) {
    if (!status.startsWith("3")) continue;
    delete response.content;
    response.headers = {
      Location: { description: "Where the redirect leads", schema: { type: "string", format: "uri" } },
      ...(response.headers as Json | undefined),
    };
  }
  const success = Object.entries(responses).find(([status]) => status.startsWith("2"))?.[1] as Json | undefined;
  const successHeaders = {
    ...(counted ? { "X-Total-Count": integerHeader("How many match in all, before skip and take") } : {}),
    ...(operation.parameters?.some((parameter) => (parameter as { name?: string }).name === "Idempotency-Key")
      ? {
          "Idempotent-Replayed": {
            description: "true when this is the kept answer to an earlier request with the same Idempotency-Key (a kept refusal, 4xx, carries it too)",
            schema: { type: "string", enum: ["true"] },
          },
        }
      : {}),
  };
  if (success && Object.keys(successHeaders).length > 0) success.headers = { ...(success.headers as Json | undefined), ...successHeaders };
  // A sign-in through a provider answers with a redirect, which carries the cookie.
  const signedIn = Object.entries(responses).find(([status]) => /^[23]/.test(status))?.[1] as Json | undefined;
  if (sessionCookie && signedIn) signedIn.headers = { ...(signedIn.headers as Json | undefined), "Set-Cookie": cookieHeaders[sessionCookie] };
  // A CSV download (decisions §12): the generator can only call a text answer text/plain.
  if (success && csv) {
    success.content = { "text/csv": { schema: { type: "string", description: "RFC 4180, CRLF lines, a header row first" } } };
    success.headers = {
      "Content-Disposition": {
        description: 'attachment; filename="<what>-<YYYYMMDD>.csv", the date in the shop\'s zone (SHOP_TIMEZONE)',
        schema: { type: "string" },
      },
    };
  }
  const unavailable = responses["503"] as Json | undefined;
  if (retryAfter && unavailable) unavailable.headers = { "Retry-After": integerHeader("Seconds to wait before asking again") };
  // An HTML page (the fake processor's challenge): the generator can only call a text answer text/plain, or
  // put it in a union with the JSON one. The page is text/html; the JSON, where there is one too, stays JSON.
  if (success && html) {
    const page = { "text/html": { schema: { type: "string" } } };
    const union = (success.content as { "application/json"?: { schema?: { anyOf?: Json[] } } } | undefined)?.["application/json"]?.schema?.anyOf ?? [];
    const json = union.filter((branch) => branch.type !== "string");
    success.content = json.length > 0 ? { "application/json": { schema: json.length === 1 ? json[0] : { anyOf: json } }, ...page } : page;
  }
  const add = (name: ErrorResponse) => (responses[String(ERROR_RESPONSES[name][0])] ??= refer(name));
  add("BadRequest");
  if (operation.security.length > 0 && operation.security.every((requirement) => Object.keys(requirement).length > 0)) add("Unauthorized");
  if (operation.parameters?.some((parameter) => parameter.in === "path")) add("NotFound");
  if (method !== "get" && method !== "head") {
    add("PayloadTooLarge");
    if (!raw) add("UnsupportedMediaType");
  }
  if (PASSWORD_ENDPOINTS.has(`${method.toUpperCase()} ${path}`)) responses["429"] = refer("TooManyPasswordChecks");
  if (!unlimited(path)) add("TooManyRequests");
  add("InternalError");
  add("ServiceUnavailable");
}

/** The named answers some operation refers to: each error has an envelope form, and not every one is given in both. */
function usedIn(paths: OpenApiDocument["paths"], responses: Record<string, Json>) {
  const referred = new Set(JSON.stringify(paths).match(/#\/components\/responses\/\w+/g));
  return Object.fromEntries(Object.entries(responses).filter(([name]) => referred.has(`#/components/responses/${name}`)));
}

export function finishDocument(generated: OpenApiDocument, info: { publicUrl: string; cookieName: string; version: string }) {
  const schemas: Record<string, Json> = {};
  liftDefinitions(toJsonSchema(errorBody), schemas);
  liftDefinitions(toJsonSchema(envelopeError), schemas);
  const paths = liftDefinitions(generated.paths, schemas) as OpenApiDocument["paths"];
  const cookieHeaders = sessionCookieHeaders(info);
  for (const [path, operations] of Object.entries(paths))
    for (const [method, operation] of Object.entries(operations)) finishOperation(path, method, operation, cookieHeaders);
  return {
    openapi: "3.1.0",
    info: {
      title: "Storefront API",
      version: info.version,
      description: "Catalog, cart, orders and payments for the Storefront shop.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: info.publicUrl, description: "This shop (PUBLIC_URL)" }],
    paths,
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: info.cookieName, description: "The session cookie set by sign-in" },
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "The same session token, as Authorization: Bearer" },
      },
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: usedIn(paths, { ...responsesFor(""), ...responsesFor("Envelope") }),
    },
  };
}
