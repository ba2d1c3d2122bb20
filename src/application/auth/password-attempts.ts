import { DomainError, TOO_MANY_REQUESTS } from "../../domain/errors.ts";
import type { Deps } from "../ports/index.ts";

export const MAX_FAILED_SIGN_INS = 5;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Runs a password check (reading the account, and the hasher's verdict) within its e-mail's limit,
 * and returns what it found; `isRight` says from that whether the password was right.
 *
 * The check counts against the limit before it runs, so guesses sent all at once cannot slip past
 * the limit while the first ones are still being checked. Past five in any 15 minutes (a sliding
 * window: a fixed one let ten through in seconds across its end, found by an attack) the check is
 * refused with 429, until the oldest of the five is 15 minutes old; its Retry-After is the spec's
 * 900, the window, which is never too soon (the time left, which it said before, was 899 after five
 * quick guesses, off the spec's letter: found by an audit). A right password clears the count.
 *
 * Only checks that gave a verdict count: one that ends in an error (refused by the hasher before it
 * ran, too busy or the client's check already waiting; the database away), like one refused here,
 * takes its own hit back, so a flood of sign-ins, however many, or an outage with clients retrying
 * as told, leaves the count where the real checks put it and cannot lock anyone out by itself.
 *
 * A check refused while fewer than five of the counted are failures (the others still being
 * checked, on any instance) is not locked out: those may yet be right, and the spec's lockout is
 * for five failures. It is a 503 to retry in a second, by when they have their verdicts (eight
 * right sign-ins at once were three 429s for 15 minutes, found by an attack). The failures are a
 * sliding window of their own beside the checks', so every instance tells them apart alike.
 */
export async function checkPasswordWithinLimit<T>(
  deps: Pick<Deps, "loginAttempts" | "clock" | "ids">,
  email: string,
  check: () => Promise<T>,
  isRight: (found: T) => boolean,
): Promise<T> {
  // Not the fixed window's key of the code before (`sign-in:`), whose Redis value is a counter.
  const checks = `sign-in-checks:${email}`;
  const failures = `sign-in-failures:${email}`;
  const { loginAttempts: store } = deps;
  const hit = deps.ids.next();
  const at = deps.clock.now();
  if ((await store.hitSliding(checks, FAILED_SIGN_IN_WINDOW_MS, at, hit)) > MAX_FAILED_SIGN_INS) {
    await store.takeBackSliding(checks, hit);
    if ((await store.countSliding(failures, FAILED_SIGN_IN_WINDOW_MS, deps.clock.now())) < MAX_FAILED_SIGN_INS) {
      throw new DomainError("auth.checks_running", "Another sign-in for this e-mail is being checked; please try again in a moment", { retryAfterSeconds: 1 });
    }
    throw new DomainError("auth.too_many_attempts", TOO_MANY_REQUESTS, {
      reason: "Too many failed sign-in attempts for this e-mail",
      retryAfterSeconds: FAILED_SIGN_IN_WINDOW_MS / 1000,
    });
  }
  let found: T;
  try {
    found = await check();
  } catch (error) {
    await store.takeBackSliding(checks, hit);
    throw error;
  }
  if (isRight(found)) {
    const now = deps.clock.now();
    await Promise.all([store.resetSliding(checks, now), store.resetSliding(failures, now)]);
  } else {
    // A failure from when it was counted, so it ends with its check's hit.
    await store.hitSliding(failures, FAILED_SIGN_IN_WINDOW_MS, at, hit);
  }
  return found;
}
