import type { z } from "zod";

type Issue = Parameters<NonNullable<z.core.$ZodConfig["customError"]>>[0];

/**
 * The API's words for what is wrong with a field, where its schema says none of its own: read
 * beside the field in a form, "is required" or "must be at most 200 characters", not zod's "Too
 * small: expected string to have >=1 characters". Any other issue keeps zod's message.
 */
export function fieldMessage(issue: Issue): string | undefined {
  const exclusive = "inclusive" in issue && issue.inclusive === false;
  if (issue.code === "too_small") {
    const at = issue.minimum;
    if (issue.origin === "string") return Number(at) <= 1 ? "is required" : `must be at least ${at} characters`;
    if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
      return exclusive ? `must be more than ${at}` : `must be at least ${at}`;
    if (issue.origin === "array" || issue.origin === "set") return `must have at least ${at} ${Number(at) === 1 ? "item" : "items"}`;
  }
  if (issue.code === "too_big") {
    const at = issue.maximum;
    if (issue.origin === "string") return `must be at most ${at} characters`;
    if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
      return exclusive ? `must be less than ${at}` : `must be at most ${at}`;
    if (issue.origin === "array" || issue.origin === "set") return `must have at most ${at} ${Number(at) === 1 ? "item" : "items"}`;
  }
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return "is required";
    const expected =
      issue.expected === "int" ? "a whole number" : issue.expected === "array" || issue.expected === "object" ? `an ${issue.expected}` : `a ${issue.expected}`;
    return `must be ${expected}`;
  }
  return undefined;
}
