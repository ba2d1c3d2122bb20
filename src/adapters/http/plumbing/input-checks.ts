/** Decisions §10: JSON nested deeper than this is refused. */
export const MAX_DEPTH = 32;
/** Decisions §10: an error answer lists at most this many issues, so its size never grows with the request. */
export const MAX_ISSUES = 20;
const MAX_PATH_LENGTH = 200;
const MAX_MESSAGE_LENGTH = 300;

/** Cut to at most `length` characters, never between the two halves of a surrogate pair. */
function clip(text: string, length: number): string {
  if (text.length <= length) return text;
  let end = length - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end--;
  return `${text.slice(0, end)}…`;
}

// C0 control characters and DEL, but tab and line breaks, which descriptions may hold; and the C1
// controls, which a terminal may act on (U+009B is an escape sequence's start: a product name holding
// it reached the operator's terminal through report:sales; found by an attack).
const CONTROL = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** What is wrong with one part of a request, and where in it. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** An issue as answered: path and message cut to a fixed size, whatever the request held. */
export function issue(path: string, message: string): ValidationIssue {
  return { path: clip(path, MAX_PATH_LENGTH), message: clip(message, MAX_MESSAGE_LENGTH) };
}

function stringProblem(text: string): string | null {
  if (text.includes("\u0000")) return "must not contain a NUL character";
  if (!text.isWellFormed()) return "must not contain a lone UTF-16 surrogate";
  if (CONTROL.test(text)) return "must not contain control characters";
  return null;
}

/** A place in the input being walked; its path is spelled out only for an issue. */
interface Place {
  value: unknown;
  parent: Place | null;
  key: string;
  depth: number;
}

/**
 * Whether `inner`, found at `depth`, needs a place of its own on the walk: a string, or an object
 * or array that holds something or sits at the depth limit. Numbers, booleans, null and empty
 * objects above the limit hold nothing to check.
 */
function worthAVisit(inner: unknown, depth: number): boolean {
  if (typeof inner === "string") return true;
  if (inner === null || typeof inner !== "object") return false;
  if (depth >= MAX_DEPTH) return true;
  if (Array.isArray(inner)) return inner.length > 0;
  for (const _ in inner) return true;
  return false;
}

function pathOf(place: Place): string {
  if (!place.parent) return place.key;
  const parent = pathOf(place.parent);
  return parent ? `${parent}.${place.key}` : place.key;
}

/**
 * What no input may hold, anywhere in it: nesting deeper than 32 levels, NUL characters (PostgreSQL
 * text cannot store them), lone UTF-16 surrogates (not text at all; PostgreSQL refuses them in
 * JSON) and other control characters (tab and line breaks aside), in keys as in values. Walks with an explicit stack, so no depth of input can overflow it,
 * and stops at MAX_ISSUES. Cheap per element, as it runs before authentication on every body: a
 * megabyte of `[0,0,…]` is half a million of them (it took 0.3 s, every other request waiting, when
 * each had its path spelled out; found by an attack).
 */
export function inputProblems(value: unknown, at = ""): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Place[] = [{ value, parent: null, key: at, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const place = stack.pop()!;
    const current = place.value;
    if (typeof current === "string") {
      const problem = stringProblem(current);
      if (problem) issues.push(issue(pathOf(place), problem));
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (place.depth >= MAX_DEPTH) {
      issues.push(issue(pathOf(place), `must not be nested more than ${MAX_DEPTH} levels deep`));
      continue;
    }
    const depth = place.depth + 1;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        if (worthAVisit(current[i], depth)) stack.push({ value: current[i], parent: place, key: String(i), depth });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const keyProblem = stringProblem(key);
      const inner: unknown = (current as Record<string, unknown>)[key];
      if (keyProblem) issues.push(issue(pathOf({ value: inner, parent: place, key, depth }), `field name ${keyProblem}`));
      else if (worthAVisit(inner, depth)) stack.push({ value: inner, parent: place, key, depth });
    }
  }
  return issues.slice(0, MAX_ISSUES);
}
