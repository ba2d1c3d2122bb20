import { DomainError } from "../../domain/errors.ts";
import { passwordProblem } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";

/** What is wrong with a password someone is choosing, as the issue of its field; none when it keeps the rules. */
export function newPasswordIssues(deps: Pick<Deps, "commonPasswords">, password: string, field: string): Array<{ path: string; message: string }> {
  const problem = passwordProblem(password, (lowercased) => deps.commonPasswords.includes(lowercased));
  return problem ? [{ path: field, message: problem }] : [];
}

/** A password someone is choosing: refused with a 400 naming the field when it breaks the rules. */
export function assertNewPassword(deps: Pick<Deps, "commonPasswords">, password: string, field: string): void {
  const issues = newPasswordIssues(deps, password, field);
  if (issues.length) throw new DomainError("invalid_input", "Invalid request", { issues });
}
