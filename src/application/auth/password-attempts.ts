import { DomainError, TOO_MANY_REQUESTS } from "../../domain/errors.ts";
import type { Deps } from "../ports/index.ts";

export const MAX_FAILED_SIGN_INS = 5;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/**
 * How long a check counts as running at most: one that has given no verdict by then died with its
 * instance (a check takes a second or two: the hasher's line is bounded), and stops counting, where
 * a killed instance's checks held an e-mail at 503 for 15 minutes (found by an attack).
 */
export const RUNNING_CHECK_MS = 60_000;

/**
 * Runs a password check (reading the account, and the hasher's verdict) within its e-mail's limit,
 * and returns what it found; `isRight` says from that whether the password was right.
 *
 * At most five checks of an e-mail run or have failed in any 15 minutes. A check counts before it
 * runs, so guesses sent all at once cannot slip past the limit while the first ones are still being
 * checked: first as running, then, failed, as a failure for the 15 minutes after it (a sliding
 * window: a fixed one let ten through in seconds across its end, found by an attack). Past five
 * failures the check is refused with 429, until the oldest of the five is 15 minutes old; its
 * Retry-After is the spec's 900, the window, which is never too soon (the time left, which it said
 * before, was 899 after five quick guesses, off the spec's letter: found by an audit).
 *
 * A check refused while fewer than five are failures (the others still running, on any instance) is
 * not locked out: those may yet be right, and the spec's lockout is for five failures. It is a 503
 * to retry in a second, by when they have their verdicts (eight right sign-ins at once were three
 * 429s for 15 minutes, found by an attack).
 *
 * A right password clears the failures before it, not the checks still running: a wrong guess
 * checked alongside it still counts (each right sign-in let four more guesses in, found by an
 * attack). A check that ends in an error (refused by the hasher before it ran, too busy or the
 * client's check already waiting; the database away), like one refused here, counts for nothing,
 * so a flood of sign-ins, however many, or an outage with clients retrying as told, cannot lock
 * anyone out by itself.
 */
export async function checkPasswordWithinLimit<T>(
  deps: Pick<Deps, "loginAttempts" | "clock" | "ids">,
  email: string,
  check: () => Promise<T>,
  isRight: (found: T) => boolean,
): Promise<T> {
  const running = `sign-in-running:${email}`;
  const failures = `sign-in-failures:${email}`;
  const { loginAttempts: store } = deps;
  const hit = deps.ids.next();
  const at = deps.clock.now();
  // Running read first: a check that fails meanwhile is a failure before it stops running, so it is
  // counted once or twice here, never missed.
  const checking = await store.hitSliding(running, RUNNING_CHECK_MS, at, hit);
  const failed = await store.countSliding(failures, FAILED_SIGN_IN_WINDOW_MS, at);
  if (checking + failed > MAX_FAILED_SIGN_INS) {
    await store.takeBackSliding(running, hit);
    if (failed < MAX_FAILED_SIGN_INS) {
      throw new DomainError("auth.checks_running", "Another sign-in for this e-mail is being checked; please try again in a moment", { retryAfterSeconds: 1 });
    }
    throw new DomainError("auth.too_many_attempts", TOO_MANY_REQUESTS, {
      reason: "Too many failed sign-in attempts for this e-mail",
      retryAfterSeconds: FAILED_SIGN_IN_WINDOW_MS / 1000,
    });
  }
  try {
    const found = await check();
    // A failure at its verdict, as a success's reset is: a success clears the failures whose verdict
    // came before it, in whatever order the store hears of them (an instance's failures sent when
    // Redis came back undid a success on another instance, found by an attack).
    if (isRight(found)) await store.resetSliding(failures, deps.clock.now());
    else await store.hitSliding(failures, FAILED_SIGN_IN_WINDOW_MS, deps.clock.now(), hit);
    return found;
  } finally {
    // Running no more: after its failure is counted, or when it gave no verdict (an error).
    await store.takeBackSliding(running, hit);
  }
}
