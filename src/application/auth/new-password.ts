import { DomainError } from "../../domain/errors.ts";
import { passwordAsKept, passwordProblem } from "../../domain/user.ts";
import type { PasswordHasher } from "../ports/identity.ts";
import type { Deps } from "../ports/index.ts";

/** What is wrong with a password someone is choosing, as the issue of its field; none when it keeps the rules. */
export function newPasswordIssues(deps: Pick<Deps, "commonPasswords">, password: string, field: string): Array<{ path: string; message: string }> {
  const problem = passwordProblem(passwordAsKept(password), (lowercased) => deps.commonPasswords.includes(lowercased));
  return problem ? [{ path: field, message: problem }] : [];
}

/** A password someone is choosing: refused with a 400 naming the field when it breaks the rules. */
export function assertNewPassword(deps: Pick<Deps, "commonPasswords">, password: string, field: string): void {
  const issues = newPasswordIssues(deps, password, field);
  if (issues.length) throw new DomainError("invalid_input", "Invalid request", { issues });
}

/** The hash kept of a new password: of its kept form (passwordAsKept). */
export function hashPassword(hasher: PasswordHasher, password: string, client?: string): Promise<string> {
  return hasher.hash(passwordAsKept(password), client);
}

/**
 * Whether a typed password is the account's: its kept form first. A password set before passwords
 * were kept so (2026-11-27) was hashed as typed, so a typed one that NFKC changes is tried as typed
 * too, in the same check of the hasher's line.
 */
export function passwordMatches(hasher: PasswordHasher, typed: string, hash: string | null, client?: string): Promise<boolean> {
  const kept = passwordAsKept(typed);
  return hasher.verify(kept === typed ? [kept] : [kept, typed], hash, client);
}
