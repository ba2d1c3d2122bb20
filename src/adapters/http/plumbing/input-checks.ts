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

/**
 * What no input may hold, anywhere in it: nesting deeper than 32 levels, NUL characters (PostgreSQL
 * text cannot store them), lone UTF-16 surrogates (not text at all; PostgreSQL refuses them in
 * JSON) and other control characters (tab and line breaks aside), in keys as in values. Walks with an explicit stack, so no depth of input can overflow it,
 * and stops at MAX_ISSUES.
 */
export function inputProblems(value: unknown, at = ""): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: at, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === "string") {
      const problem = stringProblem(current);
      if (problem) issues.push(issue(path, problem));
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= MAX_DEPTH) {
      issues.push(issue(path, `must not be nested more than ${MAX_DEPTH} levels deep`));
      continue;
    }
    const entries = Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!;
      const innerPath = path ? `${path}.${key}` : key;
      const keyProblem = stringProblem(key);
      if (keyProblem) issues.push(issue(innerPath, `field name ${keyProblem}`));
      else stack.push({ value: inner, path: innerPath, depth: depth + 1 });
    }
  }
  return issues.slice(0, MAX_ISSUES);
}
