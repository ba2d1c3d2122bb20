import { DomainError } from "../../domain/errors.ts";
import { passwordProblem } from "../../domain/user.ts";
import type { Deps } from "../ports/index.ts";

/** A password someone is choosing: refused with a 400 naming the field when it breaks the rules. */
export function assertNewPassword(deps: Pick<Deps, "commonPasswords">, password: string, field: string): void {
  const problem = passwordProblem(password, (lowercased) => deps.commonPasswords.includes(lowercased));
  if (problem) throw new DomainError("invalid_input", "Invalid request", { issues: [{ path: field, message: problem }] });
}
