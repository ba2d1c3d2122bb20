/**
 * Requests made from the served OpenAPI document, and answers judged by it (issue 22's fuzz).
 *
 * No maintained library maps an OpenAPI 3.1 (JSON Schema 2020-12) document to fast-check
 * arbitraries: json-schema-fast-check was written for fast-check 1 and zod-fast-check for zod 3
 * and fast-check 3, and either would bypass the document. The document's schemas use a small set
 * of keywords (type, enum, const, anyOf, properties, required, additionalProperties, items,
 * min/maxItems, min/maxLength, pattern, format, minimum, maximum, exclusiveMinimum), so a small
 * mapper follows, and throws on a keyword it does not know rather than guessing. Answers are
 * checked with Ajv's 2020-12 validator against the document itself.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";

/** A JSON document (or part of one), walked by key. */
export type Json = any;
type Arb = fc.Arbitrary<unknown>;

export interface Operation {
  /** `METHOD /path/{param}`, as the document names it. */
  route: string;
  method: string;
  path: string;
  spec: Json;
}

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, spec]) => ({ route: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, spec })),
  );
}

/** What the shop under test holds, offered beside what a schema generates, so requests reach real records and not only 404s. */
export interface Known {
  /** Tried wherever a string's pattern admits them: ids, slugs, payment intents. */
  strings: readonly string[];
  /** Tried for a field or parameter of this name: e-mails, passwords. */
  byName: Readonly<Record<string, readonly unknown[]>>;
}

const KNOWN_KEYWORDS = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "anyOf",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "default",
  "description",
]);

const JSON_TYPES = ["string", "number", "integer", "boolean", "null", "array", "object"] as const;
/** One value of each JSON type, for a field given the wrong one. */
const OF_TYPE: Record<(typeof JSON_TYPES)[number], unknown[]> = {
  string: ["", "1", "true", "x"],
  number: [1.5, -1, 0, 1e308],
  integer: [0, 1, -1, 2 ** 53],
  boolean: [true, false],
  null: [null],
  array: [[], [1], [{}]],
  object: [{}, { a: 1 }],
};

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  "date-time": () => fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () =>
    fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  // fast-check's webUrl takes over a second to build on first use: a smaller one does here.
  uri: () =>
    fc
      .tuple(
        fc.constantFrom("https", "http"),
        fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/),
        fc.constantFrom("com", "example", "co.uk"),
        fc.stringMatching(/^(\/[\w.~-]{0,20}){0,4}(\?[\w=&-]{0,30})?$/),
      )
      .map(([scheme, host, tld, rest]) => `${scheme}://${host}.${tld}${rest}`),
};
const BAD_FORMATS: Record<string, string[]> = {
  "date-time": ["2026-02-30T00:00:00Z", "yesterday", "2026-13-01T00:00:00Z", "2026-01-01 00:00:00", "+275760-09-13T00:00:00.001Z"],
  date: ["2026-02-30", "2026-13-01", "26-1-1", "0000-00-00", "99999-01-01"],
  uri: ["not a uri", "javascript:alert(1)", "//no-scheme.example", "http://", "https://exa mple.com/"],
};

/** A string of the given length (strings this long are built, not drawn character by character). */
const ofLength = (n: number, char = "x") => char.repeat(Math.max(0, n));

/** Keeps one value a plain own property even when its key is `__proto__` (JSON.parse makes such keys own too). */
export function withKey(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

export class SchemaArbitraries {
  private readonly validCache = new Map<Json, Arb>();

  constructor(
    private readonly doc: Json,
    private readonly known: Known,
  ) {}

  /** The schema a `$ref` names (within this document), or the schema itself. */
  deref(schema: Json): Json {
    let current = schema;
    for (let hops = 0; current?.$ref; hops++) {
      if (hops > 20 || !String(current.$ref).startsWith("#/")) throw new Error(`Cannot follow ${current.$ref}`);
      current = String(current.$ref)
        .slice(2)
        .split("/")
        .reduce((node: Json, part: string) => node?.[part.replaceAll("~1", "/").replaceAll("~0", "~")], this.doc);
    }
    if (current === undefined) throw new Error(`Unresolved reference ${schema.$ref}`);
    return current;
  }

  private typesOf(schema: Json): string[] {
    if (schema.type) return Array.isArray(schema.type) ? schema.type : [schema.type];
    if (schema.properties) return ["object"];
    return [];
  }

  /** Values the schema accepts; `name` is the field's or parameter's, for known values. */
  valid(raw: Json, name?: string): Arb {
    const schema = this.deref(raw);
    const generated = this.validCache.get(schema) ?? this.freshValid(schema);
    this.validCache.set(schema, generated);
    const named = name ? this.known.byName[name]?.filter((value) => this.admits(schema, value)) : undefined;
    return named?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...named) }, { weight: 1, arbitrary: generated }) : generated;
  }

  /** Whether a known value fits a field's schema (its type, enum, length, pattern and range), so it is offered only where it is valid. */
  private admits(raw: Json, value: unknown): boolean {
    const schema = this.deref(raw);
    if (schema.anyOf) return schema.anyOf.some((branch: Json) => this.admits(branch, value));
    if ("const" in schema) return schema.const === value;
    if (schema.enum) return schema.enum.includes(value);
    const types = this.typesOf(schema);
    const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value;
    if (types.length > 0 && !types.includes(type) && !(type === "integer" && types.includes("number"))) return false;
    if (typeof value === "string")
      return (
        value.length >= (schema.minLength ?? 0) &&
        value.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY) &&
        (!schema.pattern || new RegExp(schema.pattern, "u").test(value))
      );
    if (typeof value === "number") return value >= (schema.minimum ?? Number.NEGATIVE_INFINITY) && value <= (schema.maximum ?? Number.POSITIVE_INFINITY);
    if (Array.isArray(value))
      return (
        value.length >= (schema.minItems ?? 0) &&
        value.length <= (schema.maxItems ?? Number.POSITIVE_INFINITY) &&
        (!schema.items || value.every((item) => this.admits(schema.items, item)))
      );
    return true;
  }

  private freshValid(schema: Json): Arb {
    for (const keyword of Object.keys(schema)) if (!KNOWN_KEYWORDS.has(keyword)) throw new Error(`The fuzz does not know the keyword ${keyword}`);
    if ("const" in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.anyOf) return fc.oneof(...schema.anyOf.map((inner: Json) => this.valid(inner)));
    const types = this.typesOf(schema);
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    if (types.length > 1) return fc.oneof(...types.map((type) => this.valid({ ...schema, type })));
    switch (types[0]) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
      case "number":
        return this.validNumber(schema, types[0] === "integer");
      case "string":
        return this.validString(schema);
      case "array": {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? 5, Math.max(min, 5));
        const item = schema.items ? this.valid(schema.items) : fc.jsonValue({ maxDepth: 1 });
        return fc.array(item, { minLength: min, maxLength: max });
      }
      case "object":
        return this.validObject(schema);
    }
    throw new Error(`Unknown type ${types[0]}`);
  }

  private bounds(schema: Json, integer: boolean) {
    const step = integer ? 1 : 0.01;
    const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : (schema.minimum ?? (integer ? -(2 ** 31) : -1e6));
    const max = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : (schema.maximum ?? (integer ? 2 ** 31 : 1e6));
    return { min, max };
  }

  private validNumber(schema: Json, integer: boolean): Arb {
    const { min, max } = this.bounds(schema, integer);
    const whole = fc.integer({ min: Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER), max: Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER) });
    const edges = fc.constantFrom(...[min, max].filter((n) => !integer || Number.isSafeInteger(n)));
    if (integer) return fc.oneof(whole, edges);
    // Money is in dollars with at most two decimals: hundredths reach the shop's rules, other doubles its refusals.
    const hundredths = fc
      .integer({ min: Math.max(Math.ceil(min * 100), Number.MIN_SAFE_INTEGER), max: Math.min(Math.floor(max * 100), Number.MAX_SAFE_INTEGER) })
      .map((n) => n / 100);
    const double = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    return fc.oneof({ weight: 2, arbitrary: whole }, { weight: 2, arbitrary: hundredths }, { weight: 1, arbitrary: double }, { weight: 1, arbitrary: edges });
  }

  private validString(schema: Json): Arb {
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 200;
    const fits = (s: string) => s.length >= min && s.length <= max;
    const pattern = schema.pattern ? new RegExp(schema.pattern, "u") : null;
    let generated: fc.Arbitrary<string>;
    if (schema.format && FORMATS[schema.format]) generated = FORMATS[schema.format]!();
    else if (pattern) generated = patterned(pattern);
    else
      generated = fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 30) }) },
        { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 30), unit: "grapheme" }) },
        { weight: 1, arbitrary: fc.constantFrom(ofLength(min || 1), ofLength(max)) },
      );
    generated = generated.filter((s) => fits(s) && (!pattern || pattern.test(s)));
    const known = this.known.strings.filter((s) => fits(s) && (!pattern || pattern.test(s)) && (!schema.format || schema.format !== "uri"));
    return known.length ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: generated }) : generated;
  }

  private validObject(schema: Json): Arb {
    const properties: Record<string, Json> = schema.properties ?? {};
    const model = Object.fromEntries(Object.entries(properties).map(([key, inner]) => [key, this.valid(inner, key)]));
    const required = (schema.required ?? []) as string[];
    const record = fc.record(model, { requiredKeys: required });
    if (Object.keys(properties).length > 0 || schema.additionalProperties === false) return record;
    // An open object (a provider's event): any small JSON object.
    return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
  }

  /** Values the schema refuses at its top: the wrong type, or its type out of range. */
  invalid(raw: Json): Arb {
    const schema = this.deref(raw);
    const types = this.typesOf(schema);
    const allowed = new Set(types.includes("number") ? [...types, "integer"] : types);
    const wrongType = JSON_TYPES.filter((type) => types.length > 0 && !allowed.has(type) && !(type === "number" && allowed.has("integer"))).flatMap(
      (type) => OF_TYPE[type],
    );
    const choices: Arb[] = [];
    if (wrongType.length) choices.push(fc.constantFrom(...wrongType));
    const outOfRange = this.outOfRange(schema, types);
    if (outOfRange.length) choices.push(fc.constantFrom(...outOfRange));
    if (schema.anyOf) choices.push(fc.constantFrom(...OF_TYPE.array, ...OF_TYPE.boolean));
    return choices.length ? fc.oneof(...choices) : fc.constant(Symbol.for("no invalid value"));
  }

  private outOfRange(schema: Json, types: string[]): unknown[] {
    const values: unknown[] = [];
    if ("const" in schema) values.push(typeof schema.const === "boolean" ? !schema.const : `not-${schema.const}`);
    if (schema.enum)
      values.push(
        `not-${schema.enum[0]}`,
        String(schema.enum[0]).toLowerCase() === schema.enum[0] ? `${schema.enum[0]}`.toUpperCase() : `${schema.enum[0]}`.toLowerCase(),
        "",
      );
    if (types.includes("integer") || types.includes("number")) {
      const { min, max } = this.bounds(schema, types.includes("integer"));
      values.push(max + 1, min - 1, -0.5, 1e21, -1e21);
      if (types.includes("integer")) values.push(min + 0.5);
    }
    if (types.includes("string")) {
      if (schema.maxLength !== undefined) values.push(ofLength(schema.maxLength + 1));
      if (schema.minLength) values.push(ofLength(schema.minLength - 1));
      if (schema.pattern) values.push("#not matching#", " ", "A".repeat(30));
      if (schema.format && BAD_FORMATS[schema.format]) values.push(...BAD_FORMATS[schema.format]!);
    }
    if (types.includes("array")) {
      if (schema.maxItems !== undefined) values.push(Array.from({ length: schema.maxItems + 1 }, () => "x"));
      if (schema.minItems) values.push([]);
      values.push([null], [{}]);
    }
    if (types.includes("object") && schema.required?.length) values.push({});
    return values;
  }

  /** Values with exactly one thing wrong somewhere inside: a field missing, one extra, or one of the wrong type or out of range. */
  nearlyValid(raw: Json): Arb {
    const schema = this.deref(raw);
    const properties = Object.keys(schema.properties ?? {});
    if (properties.length === 0) return this.invalid(schema);
    const valid = this.valid(schema) as fc.Arbitrary<Record<string, unknown>>;
    const choices: Arb[] = [];
    if (schema.required?.length)
      choices.push(
        fc.tuple(valid, fc.constantFrom(...(schema.required as string[]))).map(([object, key]) => {
          const { [key]: _, ...rest } = object;
          return rest;
        }),
      );
    choices.push(
      fc
        .tuple(valid, fc.constantFrom("extra", "id", "role", "userId", "isAdmin", "price", "status", "__proto__", "constructor"), fc.jsonValue({ maxDepth: 1 }))
        .map(([object, key, value]) => withKey(object, key, value)),
    );
    choices.push(
      fc
        .tuple(valid, fc.constantFrom(...properties))
        .chain(([object, key]) => this.nearlyValid(schema.properties[key]).map((bad) => withKey(object, key, bad))),
    );
    return fc.oneof(...choices);
  }
}

/** Strings a pattern admits: fast-check's own generator, or (for what it cannot parse, such as a lookahead) printable strings that pass the pattern. */
function patterned(pattern: RegExp): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(pattern);
  } catch {
    return fc.string({ unit: "grapheme-ascii", maxLength: 40 }).map((s) => `/${s.replace(/^\/+/, "")}`);
  }
}

/** The schemas of the served document, compiled by Ajv (JSON Schema 2020-12, formats checked) and found by JSON pointer. */
export class DocumentValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, "openapi.json");
  }

  /** Problems of the value against the schema at this pointer of the document (`#/components/schemas/Product`). */
  problems(pointer: string, value: unknown): string[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}

export const pointerPart = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** One request the fuzz sends, as fast-check prints a counterexample: what kind, what was done to it, by whom, and the bytes. */
export interface FuzzRequest {
  kind: "valid" | "nearly valid" | "hostile";
  what: string;
  /** A name the test maps to credentials ("anonymous" sends none). */
  caller: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Sent again right after, with this body (the same request, or another body under the same Idempotency-Key). */
  again?: { body: string | Uint8Array | null };
}

type Parameter = { name: string; in: "path" | "query" | "header" | "cookie"; required?: boolean; schema: Json };
type Parts = { path: Record<string, string>; query: Array<[string, string]>; headers: Record<string, string>; body?: string | Uint8Array };

const BOUNDARY = "fuzz-boundary-7MA4YWxkTrZu0gW";
/** Header values are bytes: what a client could not send is replaced, as a client library would refuse it. */
const headerSafe = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
const asText = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

function encodeBody(value: unknown, mediaType: string): string {
  if (mediaType === "application/x-www-form-urlencoded" || mediaType === "multipart/form-data") {
    const fields = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [["value", value]];
    if (mediaType === "application/x-www-form-urlencoded")
      return fields.map(([k, v]) => `${encodeURIComponent(String(k))}=${encodeURIComponent(asText(v))}`).join("&");
    const parts = fields.map(
      ([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${String(k).replace(/["\r\n]/g, "_")}"\r\n\r\n${asText(v)}\r\n`,
    );
    return `${parts.join("")}--${BOUNDARY}--\r\n`;
  }
  return JSON.stringify(value) ?? "null";
}

const contentTypeOf = (mediaType: string) => (mediaType === "multipart/form-data" ? `${mediaType}; boundary=${BOUNDARY}` : mediaType);

/** Ids of other shapes than the document's, each a single path segment (dot segments would name another path). */
const ODD_IDS = [
  "1",
  "-1",
  "0",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "prototype",
  "%00",
  "%FF",
  "%C0%AE",
  "%ED%A0%80",
  "a%2Fb",
  "%20",
  "%E2%80%AE",
  encodeURIComponent("' OR 1=1--"),
  encodeURIComponent("😀"),
  encodeURIComponent("<script>"),
  "Z12345678901234567890123",
  "z123456789012345678901234",
  "z1234567890123456789012",
  "x".repeat(10_000),
  "%",
  "a%",
  "%%32%65",
];
const ODD_CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "APPLICATION/JSON",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/json;;;",
  "application/merge-patch+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/octet-stream",
  "*/*",
  "",
  "json",
];
const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0xae], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]];
const ODD_JSON = ["", "null", "[]", '"text"', "1e999", "-0", '{"a":1,"a":2}', "\uFEFF{}", "{} trailing", "{", '{"a":"\\ud800"}', "NaN", '{"a":1}\u0000'];
const POLLUTION = ['"__proto__":{"polluted":"yes"}', '"constructor":{"prototype":{"polluted":"yes"}}', '"__proto__":{"isAdmin":true,"role":"ADMIN"}'];
const QUERY_POLLUTION = ["__proto__[polluted]=yes", "constructor[prototype][polluted]=yes", "__proto__.polluted=yes", "__proto__=yes"];
const ODD_QUERY = ["%FF", "%", "%ED%A0%80", "%00", "a%2", "&&&", "=", "==", "%E2%80%AE"];

function urlOf(path: string, parts: Parts, extraQuery = ""): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => parts.path[name] ?? "missing");
  const query = [...parts.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), ...(extraQuery ? [extraQuery] : [])].join("&");
  return query ? `${filled}?${query}` : filled;
}

/** Requests for one operation: valid ones, nearly valid ones (one thing wrong) and hostile ones, each from some caller. */
export function requestsFor(
  operation: Operation,
  arbs: SchemaArbitraries,
  callers: readonly string[],
  /** JSON bodies to send beside the generated ones: a provider's events, where the document can only say "an object". */
  examples?: fc.Arbitrary<unknown>,
): fc.Arbitrary<FuzzRequest> {
  const parameters = ((operation.spec.parameters ?? []) as Json[]).map((p) => arbs.deref(p) as Parameter);
  const pathParameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const name of pathParameters)
    if (!parameters.some((p) => p.in === "path" && p.name === name)) throw new Error(`${operation.route}: {${name}} is not documented`);
  const requestBody = operation.spec.requestBody ? arbs.deref(operation.spec.requestBody) : null;
  const mediaTypes = Object.keys(requestBody?.content ?? {});
  const takesBody = mediaTypes.length > 0;
  const bodyAllowed = operation.method !== "GET";
  const key = (p: Parameter) => `${p.in}:${p.name}`;

  const parameterValues = fc.record(Object.fromEntries(parameters.map((p) => [key(p), arbs.valid(p.schema, p.name)])), {
    requiredKeys: parameters.filter((p) => p.required || p.in === "path").map(key),
  }) as fc.Arbitrary<Record<string, unknown>>;
  const bodyValue: fc.Arbitrary<{ mediaType: string; value: unknown } | null> = takesBody
    ? fc.constantFrom(...mediaTypes).chain((mediaType) => {
        const generated = arbs.valid(requestBody.content[mediaType].schema);
        return (examples && mediaType === "application/json" ? fc.oneof(generated, examples) : generated).map((value) => ({ mediaType, value }));
      })
    : fc.constant(null);

  const partsOf = (values: Record<string, unknown>, body: { mediaType: string; value: unknown } | null): Parts => {
    const parts: Parts = { path: {}, query: [], headers: {} };
    for (const p of parameters) {
      const value = values[key(p)];
      if (value === undefined) continue;
      if (p.in === "path") parts.path[p.name] = encodeURIComponent(asText(value));
      else if (p.in === "query") for (const item of Array.isArray(value) ? value : [value]) parts.query.push([p.name, asText(item)]);
      else if (p.in === "header") parts.headers[p.name] = headerSafe(asText(value));
    }
    if (body) {
      parts.body = encodeBody(body.value, body.mediaType);
      parts.headers["content-type"] = contentTypeOf(body.mediaType);
    }
    return parts;
  };
  const valid = fc.tuple(parameterValues, bodyValue).map(([values, body]) => ({ values, body, parts: partsOf(values, body) }));
  const request = (kind: FuzzRequest["kind"], what: string, parts: Parts, extraQuery = ""): Omit<FuzzRequest, "caller"> => ({
    kind,
    what,
    method: operation.method,
    url: urlOf(operation.path, parts, extraQuery),
    headers: parts.headers,
    ...(parts.body !== undefined ? { body: parts.body } : {}),
  });

  // Nearly valid: one thing wrong.
  const nearly: fc.Arbitrary<Omit<FuzzRequest, "caller">>[] = [];
  if (takesBody) {
    nearly.push(
      fc.tuple(valid, fc.constantFrom(...mediaTypes)).chain(([v, mediaType]) =>
        arbs.nearlyValid(requestBody.content[mediaType].schema).map((bad) => {
          const parts = partsOf(v.values, { mediaType, value: bad });
          return request("nearly valid", `body with one thing wrong (${mediaType})`, parts);
        }),
      ),
    );
    if (requestBody.required) nearly.push(valid.map((v) => request("nearly valid", "no body", { ...v.parts, body: undefined, headers: {} })));
  }
  for (const p of parameters) {
    if (p.in === "cookie") continue;
    nearly.push(
      fc.tuple(valid, arbs.invalid(p.schema)).map(([v, bad]) => {
        // An empty path segment names another path (the route's parent, or none): that is no value of this one.
        if (typeof bad === "symbol" || (p.in === "path" && asText(bad) === "")) return request("nearly valid", `${p.name} as given`, v.parts);
        return request("nearly valid", `${p.in} ${p.name} wrong`, partsOf({ ...v.values, [key(p)]: bad }, v.body));
      }),
    );
    if (p.required && p.in !== "path") {
      nearly.push(
        valid.map((v) => {
          const { [key(p)]: _, ...rest } = v.values;
          return request("nearly valid", `${p.in} ${p.name} missing`, partsOf(rest, v.body));
        }),
      );
    }
  }
  nearly.push(
    fc
      .tuple(valid, fc.constantFrom("extra", "id", "role", "page", "limit"), fc.string({ maxLength: 10 }))
      .map(([v, name, value]) =>
        request("nearly valid", `an extra query parameter ${name}`, v.parts, `${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
      ),
  );

  // Hostile.
  const hostile: fc.Arbitrary<Omit<FuzzRequest, "caller">>[] = [];
  const withBody = (v: { parts: Parts }, body: string | Uint8Array, contentType = v.parts.headers["content-type"] ?? "application/json") => ({
    ...v.parts,
    body,
    headers: { ...v.parts.headers, "content-type": contentType },
  });
  const text = (v: { parts: Parts }) => (typeof v.parts.body === "string" ? v.parts.body : "{}");
  if (bodyAllowed) {
    hostile.push(
      valid.map((v) => request("hostile", "a body over 1 MB", withBody(v, JSON.stringify({ filler: ofLength(1024 * 1024 + 1) })))),
      fc
        .tuple(valid, fc.constantFrom(33, 1_000, 100_000), fc.constantFrom("[", '{"a":'))
        .map(([v, depth, open]) =>
          request("hostile", `nested ${depth} deep`, withBody(v, `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`, "application/json")),
        ),
      fc.tuple(valid, fc.constantFrom(...BAD_UTF8), fc.nat()).map(([v, bad, at]) => {
        const bytes = Buffer.from(text(v));
        const quotes = [...bytes.keys()].filter((i) => bytes[i] === 0x22);
        const cut = quotes.length ? quotes[at % quotes.length]! + 1 : 0;
        return request(
          "hostile",
          `bytes ${bad.map((b) => b.toString(16)).join(" ")} that are not UTF-8`,
          withBody(v, Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)])),
        );
      }),
      fc
        .tuple(valid, fc.constantFrom(...ODD_CONTENT_TYPES))
        .map(([v, type]) => request("hostile", `content type ${JSON.stringify(type)}`, withBody(v, text(v), type))),
      fc
        .tuple(valid, fc.constantFrom(...ODD_JSON))
        .map(([v, json]) => request("hostile", `JSON ${JSON.stringify(json)}`, withBody(v, json, "application/json"))),
      fc.tuple(valid, fc.constantFrom(...POLLUTION)).map(([v, key]) => {
        const body = text(v).trimStart().startsWith("{") ? text(v).replace("{", `{${key}${text(v).trim() === "{}" ? "" : ","}`) : `{${key}}`;
        return request("hostile", `prototype pollution ${key}`, withBody(v, body, "application/json"));
      }),
    );
    if (takesBody) {
      hostile.push(
        fc.tuple(valid, fc.constantFrom(10_000, 200_000)).map(([v, length]) => {
          const value = v.body?.value;
          const huge = ofLength(length, "é");
          const object = value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
          const first = Object.keys(object)[0] ?? "name";
          return request(
            "hostile",
            `a field of ${length} characters`,
            withBody(v, JSON.stringify(withKey(object as Record<string, unknown>, first, huge)), "application/json"),
          );
        }),
      );
    }
  } else {
    hostile.push(
      valid.map((v) =>
        request("hostile", "a GET with a body", { ...v.parts, body: '{"a":1}', headers: { ...v.parts.headers, "content-type": "application/json" } }),
      ),
    );
  }
  if (pathParameters.length) {
    hostile.push(
      fc.tuple(valid, fc.constantFrom(...pathParameters), fc.constantFrom(...ODD_IDS)).map(([v, name, id]) =>
        request("hostile", `path ${name} ${id.length > 40 ? `of ${id.length} characters` : JSON.stringify(id)}`, {
          ...v.parts,
          path: { ...v.parts.path, [name]: id },
        }),
      ),
    );
  }
  const idempotencyKey = parameters.find((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");
  if (idempotencyKey) {
    hostile.push(
      fc.tuple(valid, arbs.valid(idempotencyKey.schema), fc.boolean()).map(([v, key, same]) => ({
        ...request("hostile", same ? "sent twice under one Idempotency-Key" : "one Idempotency-Key, then another body", {
          ...v.parts,
          headers: { ...v.parts.headers, [idempotencyKey.name]: headerSafe(asText(key)) },
        }),
        again: { body: same ? (v.parts.body ?? null) : '{"another":"body"}' },
      })),
    );
  }
  const queryNames = parameters.filter((p) => p.in === "query").map((p) => p.name);
  hostile.push(
    fc
      .tuple(valid, fc.constantFrom(...(queryNames.length ? queryNames : ["q"])), fc.constantFrom("repeated", "[]", "[0]", "[x]", "json"))
      .map(([v, name, shape]) => {
        const n = encodeURIComponent(name);
        const extra = {
          repeated: `${n}=1&${n}=2`,
          "[]": `${n}[]=1&${n}[]=2`,
          "[0]": `${n}[0]=1`,
          "[x]": `${n}[x]=1`,
          json: `${n}=${encodeURIComponent("[1,2]")}`,
        }[shape];
        const query = shape === "repeated" ? v.parts.query : v.parts.query.filter(([k]) => k !== name);
        return request("hostile", `query ${name} as an array (${shape})`, { ...v.parts, query }, extra);
      }),
    fc.tuple(valid, fc.constantFrom(...QUERY_POLLUTION, ...ODD_QUERY)).map(([v, extra]) => request("hostile", `query ${extra}`, v.parts, extra)),
    fc.tuple(valid, fc.constantFrom(...(queryNames.length ? queryNames : ["q"]))).map(([v, name]) => {
      const query = v.parts.query.filter(([k]) => k !== name);
      return request("hostile", `query ${name} of 100,000 characters`, { ...v.parts, query: [...query, [name, ofLength(100_000)]] });
    }),
    fc
      .tuple(
        valid,
        fc.constantFrom<[string, string]>(
          ["authorization", "Bearer not.a.token"],
          ["authorization", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."],
          ["authorization", "Basic YTpi"],
          ["authorization", `Bearer ${ofLength(10_000)}`],
          ["cookie", "storefront.session-token=garbage; storefront.session-token=more"],
          ["cookie", `storefront.session-token=${ofLength(8_000)}`],
          ["origin", "https://evil.example"],
          ["origin", "null"],
          ["idempotency-key", ofLength(10_000, "k")],
          ["idempotency-key", ""],
          ["idempotency-key", "é\u00ff"],
          ["x-forwarded-for", "not-an-ip, ::zz, 999.1.1.1"],
          ["accept", "application/xml"],
          ["accept", "text/html"],
          ["transfer-encoding", "chunked"],
          ["content-encoding", "gzip"],
          ["x-request-id", ofLength(5_000, "r")],
          ["content-type", "application/json; boundary=x; charset=\u00ff"],
        ),
      )
      .map(([v, [name, value]]) =>
        request("hostile", `header ${name}: ${value.length > 40 ? `${value.slice(0, 20)}… (${value.length})` : value}`, {
          ...v.parts,
          headers: { ...v.parts.headers, [name]: value },
        }),
      ),
  );

  const anyRequest = fc.oneof(
    { weight: 2, arbitrary: valid.map((v) => request("valid", "as documented", v.parts)) },
    { weight: 1, arbitrary: fc.oneof(...nearly) },
    { weight: 1, arbitrary: fc.oneof(...hostile) },
  );
  return fc.tuple(anyRequest, fc.constantFrom(...callers)).map(([r, caller]) => ({ ...r, caller }));
}

/** What in an answer the document does not allow: an undocumented status, a 5xx, a media type or body not as documented for that status. */
export function answerProblems(
  doc: Json,
  validator: DocumentValidator,
  operation: Operation,
  answer: { status: number; headers: Headers; text: string },
): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`a ${answer.status}`);
  const documented = operation.spec.responses?.[String(answer.status)];
  if (!documented) return [...problems, `status ${answer.status} is not documented (documented: ${Object.keys(operation.spec.responses).join(", ")})`];
  const pointer = documented.$ref
    ? String(documented.$ref).slice(1)
    : `/paths/${pointerPart(operation.path)}/${operation.method.toLowerCase()}/responses/${answer.status}`;
  const response = documented.$ref ? new SchemaArbitraries(doc, { strings: [], byName: {} }).deref(documented) : documented;
  const content: Record<string, Json> = response.content ?? {};
  const mediaType = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (Object.keys(content).length === 0) {
    if (answer.text !== "") problems.push(`a body where the document says none: ${answer.text.slice(0, 200)}`);
    return problems;
  }
  if (!(mediaType in content))
    return [...problems, `media type ${JSON.stringify(mediaType)} is not documented for ${answer.status} (documented: ${Object.keys(content).join(", ")})`];
  const schemaPointer = `#${pointer}/content/${pointerPart(mediaType)}/schema`;
  let body: unknown = answer.text;
  if (mediaType === "application/json" || mediaType.endsWith("+json")) {
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `a body that is not JSON: ${answer.text.slice(0, 200)}`];
    }
  }
  for (const problem of validator.problems(schemaPointer, body)) problems.push(`body: ${problem}`);
  if (problems.length) problems.push(`the body was ${answer.text.slice(0, 500)}`);
  return problems;
}
