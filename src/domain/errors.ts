/** Every expected failure the application can report. The HTTP layer maps each to a status. */
export type ErrorCode =
  | "invalid_input"
  | "forbidden"
  | "product.not_found"
  | "product.conflict"
  | "product.inventory_changed"
  | "auth.unauthenticated"
  | "auth.invalid_credentials"
  | "auth.too_many_attempts"
  | "auth.email_taken"
  | "auth.wrong_password"
  | "auth.provider_not_configured"
  | "auth.invalid_oauth_state"
  | "auth.provider_failed"
  | "user.not_found"
  | "user.last_admin"
  | "cart.item_not_found"
  | "cart.quantity_limit"
  | "cart.too_many_lines"
  | "inventory.insufficient"
  | "order.invalid_transition"
  | "payment.invalid_method"
  | "payment.processor_failed"
  | "payment.already_refunded"
  | "payment.intent_refused"
  | "tax.unavailable"
  | "cart.empty"
  | "cart.items_not_found"
  | "cart.changed"
  | "order.not_found"
  | "order.creation_failed"
  | "order.tracking_required"
  | "order.tracking_not_allowed"
  | "order.too_large"
  | "order.too_many_unpaid"
  | "payment.in_progress"
  | "order.in_progress"
  | "order.checkout_ended"
  | "payment.declined"
  | "order.already_paid"
  | "order.not_payable"
  | "order.not_cancellable"
  | "webhook.invalid_signature"
  | "webhook.malformed"
  | "webhook.not_configured"
  | "auth.busy"
  | "auth.check_waiting"
  | "auth.checks_running"
  | "database.unavailable"
  | "database.busy"
  | "database.full"
  | "database.read_only";

/**
 * Refusals that changed nothing and that the very same request may get past a moment later (another
 * payment of the order was running; the cart changed under the checkout; the customer has an unpaid
 * order to pay or cancel first; a checkout replayed while its order still waits for its payment
 * intent): an answer not to be kept for an Idempotency-Key, so the retry its text asks for can run.
 */
export const TRY_AGAIN: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["payment.in_progress", "cart.changed", "order.too_many_unpaid", "order.in_progress"]);

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** `cause`: what failed beneath, for the log and for staff (failureOf), never for the answer. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "DomainError";
  }
}

/** Seconds a caller refused for want of the database is told to wait (Retry-After): a restart takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The database cannot be reached, or dropped the connection mid-way (a restart, a cut connection):
 * nothing the request did is known to have landed but what it committed before, and the same request
 * may well get through a moment later. `cause` is what the driver said, for the log.
 */
export const databaseUnavailable = (cause: unknown): DomainError =>
  databaseRefusal("database.unavailable", "The shop cannot reach its database just now; please try again shortly", cause);

/** Whether the error is databaseUnavailable's: a statement whose connection was lost may have landed or not. */
export const isDatabaseUnavailable = (error: unknown): error is DomainError => error instanceof DomainError && error.code === "database.unavailable";

/**
 * What the request needs (an order's row, a product's) has been locked by another session for longer
 * than the shop waits for a lock (a transaction left open in psql, a long job of an operator's), or
 * the database cancelled the statement (its own statement_timeout, an operator's pg_cancel_backend),
 * or broke a deadlock by it (a transaction's at each of its three runs, a single statement's at
 * once): the statement was cancelled and its transaction undone, and the same request gets through once the
 * lock is let go. What the processor did before it is not undone: the callers finish that as after
 * a crash (housekeeping). `cause` is what the driver said, for the log.
 */
export const databaseBusy = (cause: unknown): DomainError =>
  databaseRefusal("database.busy", "What this needs is busy just now; please try again shortly", cause);

/** Seconds a caller refused for a full disk is told to wait: freeing space is an operator's work. */
export const DISK_FULL_RETRY_AFTER_SECONDS = 60;

/**
 * The database's disk is full (SQLSTATE 53100, PostgreSQL's or the embedded one's): the statement
 * failed whole, and nothing that writes gets through until an operator frees space. Reads still do.
 */
export const databaseFull = (cause: unknown): DomainError =>
  databaseRefusal("database.full", "The shop cannot store anything just now; please try again later", cause, DISK_FULL_RETRY_AFTER_SECONDS);

/**
 * The database takes no writes (SQLSTATE 25006: a standby the shop was pointed at, or
 * `default_transaction_read_only` set on it for maintenance): the statement failed whole, and
 * nothing that writes gets through until the database takes writes again. Reads still do.
 */
export const databaseReadOnly = (cause: unknown): DomainError =>
  databaseRefusal("database.read_only", "The shop cannot store anything just now; please try again shortly", cause);

/** The refusals for want of the database: each a 503 with Retry-After, and none the request's fault. */
export const DATABASE_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["database.unavailable", "database.busy", "database.full", "database.read_only"]);

/** A refusal for want of the database: a 503 with Retry-After (DATABASE_RETRY_AFTER_SECONDS unless said), with what the driver said as its cause. */
function databaseRefusal(
  code: "database.unavailable" | "database.busy" | "database.full" | "database.read_only",
  message: string,
  cause: unknown,
  retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS,
): DomainError {
  const error = new DomainError(code, message, { retryAfterSeconds });
  error.cause = cause;
  return error;
}

/** Whether the error is databaseBusy's: a statement that waited too long for a lock, or was cancelled, and landed nothing. */
export const isDatabaseBusy = (error: unknown): error is DomainError => error instanceof DomainError && error.code === "database.busy";

/** Whether the error is databaseFull's or databaseReadOnly's: nothing can be written until the database takes writes again. */
export const isRefusingWrites = (error: unknown): error is DomainError =>
  error instanceof DomainError && (error.code === "database.full" || error.code === "database.read_only");

/** Whether the database refused, for any of its reasons (away, a row held too long, its disk full, writes refused): the request's fault in none, and a 503. */
export const isDatabaseRefusal = (error: unknown): error is DomainError => error instanceof DomainError && DATABASE_REFUSALS.has(error.code);

/**
 * The spec's text of every 429, whatever refused: the rate limit, a locked-out e-mail, a client's
 * password check already waiting. What refused, when it is not the rate limit, is in the details' `reason`.
 */
export const TOO_MANY_REQUESTS = "Rate limit exceeded. Please try again later.";

/** The spec's 401: no session, or one that names an account that no longer exists (for the caller, the same). */
export function unauthenticated(): DomainError {
  return new DomainError("auth.unauthenticated", "Unauthorized - authentication required");
}

/** What went wrong, for a log line: an Error's message, or whatever was thrown as text. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error !== "object" || error === null) return String(error);
  // Something thrown that is no Error: say what it holds, never "[object Object]" (PGlite's file
  // system throws `{ name: "ErrnoError", errno: 51 }` for a full disk: found by an attack).
  const { message, name, errno, code } = error as Record<string, unknown>;
  if (typeof message === "string" && message !== "") return message;
  const said = [name, code, errno === undefined ? undefined : `errno ${String(errno)}`].filter((part) => typeof part === "string" && part !== "");
  if (said.length > 0) return said.join(" ");
  try {
    return JSON.stringify(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** What went wrong, for a log line's fields: its message, and its cause's when it has one (a refusal for want of the database keeps the driver's words there). */
export function failureOf(error: unknown): { error: string; reason?: string } {
  return error instanceof Error && error.cause !== undefined ? { error: error.message, reason: messageOf(error.cause) } : { error: messageOf(error) };
}
