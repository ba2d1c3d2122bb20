import { databaseBusy, databaseFull, databaseReadOnly, databaseUnavailable } from "../../domain/errors.ts";

const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/**
 * A LIKE pattern that matches the text anywhere, with the user's own % and _ taken literally; in
 * Unicode's composed form (NFC), as the shop keeps names and descriptions.
 */
export function containsPattern(text: string): string {
  return `%${escapeLike(text.normalize("NFC"))}%`;
}

export function startsWithPattern(text: string): string {
  return `${escapeLike(text.normalize("NFC"))}%`;
}

type Counted = { total: string | number | bigint };

/**
 * Pages select `count(*) over ()` alongside their rows, so one round trip brings both. Only a page
 * past the end comes back empty and needs the separate count.
 */
export async function totalOf(rows: Counted[], offset: number, count: () => Promise<Counted>): Promise<number> {
  if (rows[0]) return Number(rows[0].total);
  return offset === 0 ? 0 : Number((await count()).total);
}

/** Network failures: the server refused, reset or never answered the connection. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/**
 * SQLSTATEs of a server that cannot serve: a connection exception (class 08), shut down by an
 * administrator (a fast stop, pg_terminate_backend) or a crash, starting up or shutting down, too
 * many connections; and a server that will not serve this shop for now: its database missing
 * (3D000, dropped and made again by a restore) or its login refused (class 28, a password being
 * rotated). Each was a 500 on every route (found by an attack). And a connection the server closed
 * for idling past its idle_session_timeout (57P05) or idle_in_transaction_session_timeout (25P03),
 * which a query may meet as it is sent: a 500 now and then (found by an attack).
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "57P05", "25P03", "53300", "3D000"]);
const UNAVAILABLE_CLASSES = ["08", "28"];
/**
 * SQLSTATE 55000, which PostgreSQL gives for much else, from the check of the database a connection
 * is made to (postinit.c): closed to connections (ALLOW_CONNECTIONS false, a step of a restore), or
 * left invalid by an interrupted DROP DATABASE. By its routine, not its message, which the server
 * may give in another language (found by an attack and a review).
 */
const closedToConnections = (error: object) => {
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  return code === "55000" && (routine === "CheckMyDatabase" || routine === "InitPostgres");
};

/** What node-postgres says of a connection it lost, or could not make in time (it gives these no code). */
const LOST_MESSAGES = [
  "Connection terminated",
  "connection error and is not queryable",
  "Client was closed and is not queryable",
  "timeout exceeded when trying to connect",
];

/** The SQLSTATE (or Node's error code) an error carries, if any. */
const codeOf = (error: unknown) => (typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined);

/**
 * An instant as PostgreSQL reads a timestamptz, whatever its year: toISOString writes the year
 * 10000 as `+010000` and 1 BC as `0000`, both of which PostgreSQL refuses, where it takes `10000-…`
 * and `0001-… BC` (a report to 9999-12-31 ends at the start of 10000-01-01). For instants sent as
 * text, as in an array literal; a Date parameter pg writes itself.
 */
export function timestamptzText(at: Date): string {
  const iso = at.toISOString();
  const year = at.getUTCFullYear();
  if (year >= 1 && year <= 9999) return iso;
  const rest = iso.slice(iso.indexOf("-", 1));
  return year > 9999 ? `${year}${rest}` : `${String(1 - year).padStart(4, "0")}${rest} BC`;
}

/**
 * Whether the error says PostgreSQL could not be reached, would not take the shop (its database
 * missing, its login refused), or dropped the connection mid-way (a restart, a terminated backend,
 * the network): not the query's fault, and a moment later the same query may well run. An
 * AggregateError (a name that resolved to several addresses) is one when any of its errors is.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2)))) return true;
  if (closedToConnections(error)) return true;
  if (typeof message === "string" && LOST_MESSAGES.some((lost) => message.includes(lost))) return true;
  return Array.isArray(errors) && errors.some(isConnectionLost);
}

/**
 * Whether the database could not write for want of disk (SQLSTATE 53100: a table or index that could
 * not grow): a 500 on every write, each logged with its stack, before (found by an attack).
 */
export function isDiskFull(error: unknown): boolean {
  return codeOf(error) === "53100";
}

/** Whether the statement was cancelled for waiting on a lock longer than lock_timeout (SQLSTATE 55P03; database.ts sets it). */
export function isLockTimeout(error: unknown): boolean {
  return codeOf(error) === "55P03";
}

/**
 * A failure that is the database's, not the request's, as the caller is told of it: unreachable or
 * lost (databaseUnavailable), a lock waited on too long or a deadlock (databaseBusy), its disk full
 * (databaseFull), or writes refused (databaseReadOnly), each a 503 with Retry-After. Anything else as it is.
 */
export function asDatabaseRefusal(error: unknown): unknown {
  if (isConnectionLost(error)) return databaseUnavailable(error);
  if (isLockTimeout(error) || isCancelled(error) || isDeadlock(error)) return databaseBusy(error);
  if (isDiskFull(error)) return databaseFull(error);
  if (isReadOnly(error)) return databaseReadOnly(error);
  return error;
}

/**
 * A statement the database refused whole, for a reason of its own and not the request's: a lock
 * waited on too long, a statement cancelled, its disk full, writes refused. Nothing of it landed,
 * and running it again at once would meet the same refusal.
 */
export function isRefusedWhole(error: unknown): boolean {
  return isLockTimeout(error) || isCancelled(error) || isDiskFull(error) || isReadOnly(error);
}

/**
 * Whether PostgreSQL cancelled the statement (SQLSTATE 57014): past a statement_timeout the
 * database or the role sets (managed servers often do), or by an operator's pg_cancel_backend. The
 * shop cancels none of its own. A 500 with its stack, before (found by an attack).
 */
export function isCancelled(error: unknown): boolean {
  return codeOf(error) === "57014";
}

/**
 * Whether the database refused to write (SQLSTATE 25006): a standby, or `default_transaction_read_only`
 * set on the database. Every write was a 500 with its stack, before (found by an attack).
 */
export function isReadOnly(error: unknown): boolean {
  return codeOf(error) === "25006";
}

/**
 * PostgreSQL refused a prepared statement whose result the schema has changed since (SQLSTATE 0A000
 * from its plan cache's revalidation: "cached plan must not change result type"): nothing of it ran,
 * and prepared again (prepared-statements.ts) it runs.
 */
export function isStalePlan(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  return code === "0A000" && routine === "RevalidateCachedQuery";
}

/** Whether PostgreSQL aborted the transaction to break a deadlock (SQLSTATE 40P01). */
export function isDeadlock(error: unknown): boolean {
  return codeOf(error) === "40P01";
}

/** Whether the error is a foreign-key violation (SQLSTATE 23503) of a reference to users. */
export function referencesMissingUser(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === "23503" && typeof constraint === "string" && constraint.endsWith("_user_id_fkey");
}

/** The constraint a unique violation (SQLSTATE 23505) broke, from pg or PGlite; null for any other error. */
export function violatedUniqueConstraint(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" ? (typeof constraint === "string" ? constraint : "unknown") : null;
}

/**
 * Keyset batches of `read` (given the last row of the batch before, null for the first; one
 * statement each); a batch shorter than `batchSize` is the last. While `quiet` says nobody else
 * is waiting, the next batch is read while the caller writes out this one, so the database and
 * this server work at once (an orders export alone: each sat idle half the time); otherwise a batch
 * is read when asked for, and the export's share of the database stays what its pace gives it. A
 * failed read ahead fails when its batch is asked for, and one never asked for (the download was
 * cut) is dropped with its rows.
 */
export async function* readAhead<Row>(read: (after: Row | null) => Promise<Row[]>, batchSize: number, quiet: () => boolean): AsyncGenerator<Row[]> {
  const settled = (rows: Promise<Row[]>) =>
    rows.then(
      (batch) => () => batch,
      (error: unknown) => () => {
        throw error;
      },
    );
  let after: Row | null = null;
  let ahead: Promise<() => Row[]> | null = null;
  for (;;) {
    const rows: Row[] = (await (ahead ?? settled(read(after))))();
    const last = rows.at(-1);
    const more = last !== undefined && rows.length === batchSize;
    after = last ?? null;
    ahead = more && quiet() ? settled(read(after)) : null;
    if (rows.length > 0) yield rows;
    if (!more) return;
  }
}
