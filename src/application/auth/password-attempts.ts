import { DomainError, type ErrorCode } from "../../domain/errors.ts";
import type { Deps } from "../ports/index.ts";

export const MAX_FAILED_SIGN_INS = 5;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** The hasher's refusals before it checked anything (too busy; this client's check already waiting). */
const NOT_CHECKED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["auth.busy", "auth.check_waiting"]);

export interface AdmittedCheck {
  /** The password was right: the count starts again. */
  succeeded(): Promise<void>;
  /** Runs the check; one the hasher refused before it ran (too busy, or the client's check already waiting) is not counted. */
  run(check: () => Promise<boolean>): Promise<boolean>;
}

/**
 * Counts a password check against its e-mail's limit before the (slow) check runs, so guesses sent
 * all at once cannot slip past the limit while the first ones are still being checked. Past five in
 * 15 minutes the check is refused with 429. Only checks that ran count: a refused one (locked out,
 * or refused by the hasher) takes its count back, so a flood of sign-ins, however many, leaves the
 * count where the real checks put it and cannot lock anyone out by itself.
 */
export async function admitPasswordCheck(deps: Pick<Deps, "loginAttempts" | "clock">, email: string): Promise<AdmittedCheck> {
  const key = `sign-in:${email}`;
  const now = deps.clock.now();
  const attempts = await deps.loginAttempts.increment(key, FAILED_SIGN_IN_WINDOW_MS, now);
  if (attempts.count > MAX_FAILED_SIGN_INS) {
    await deps.loginAttempts.decrement(key);
    const retryAfterSeconds = Math.max(1, Math.ceil((attempts.resetAt.getTime() - now.getTime()) / 1000));
    throw new DomainError("auth.too_many_attempts", "Too many failed sign-in attempts. Please try again later.", { retryAfterSeconds });
  }
  return {
    succeeded: () => deps.loginAttempts.reset(key),
    async run(check) {
      try {
        return await check();
      } catch (error) {
        if (error instanceof DomainError && NOT_CHECKED.has(error.code)) await deps.loginAttempts.decrement(key);
        throw error;
      }
    },
  };
}
