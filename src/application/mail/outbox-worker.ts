import type { Deps } from "../ports/index.ts";
import { MailRefused, type OutboxMessage } from "../ports/mail.ts";
import { periodic } from "../system/periodic.ts";
import { messageOf } from "../../domain/errors.ts";

export interface OutboxWorkerOptions {
  batchSize: number;
  /** How long a claimed message stays hidden, in case the worker dies mid-send; at least a batch's sends at their deadline, and two minutes more. */
  leaseMs: number;
  pollIntervalMs: number;
  /** Attempts before a message is given up as "failed" and left for an operator. */
  maxAttempts: number;
  /** Delay before the next try after the `attempt`-th failed one. */
  backoff(attempt: number): number;
  /**
   * The longest one send may take, the whole of it: a server that answers a byte at a time never
   * goes quiet long enough for the socket's own timeout, and held a worker (and its batch, past the
   * lease, so that another instance sent it all again) for as long as it liked (found by an attack).
   */
  sendDeadlineMs: number;
}

const defaults: OutboxWorkerOptions = {
  batchSize: 10,
  leaseMs: 5 * 60_000,
  pollIntervalMs: 5_000,
  maxAttempts: 12,
  backoff: (attempt) => Math.min(30_000 * 2 ** (attempt - 1), 60 * 60_000),
  sendDeadlineMs: 20_000,
};

/**
 * How much of its lease a message must have left, beyond its send's deadline, for the send to
 * start: recording the outcome comes after the send, and another instance's clock may run ahead.
 */
const LEASE_MARGIN_MS = 60_000;

/** What an error says, cut to this many characters in the log and the outbox: a server's 900 KB refusal, a dozen times a message, filled both (found by an attack). */
const ERROR_CHARS = 1_000;

/** "superseded": the send failed, but by the time that was recorded the message had left this claim, so nothing was (see superseded()). */
type Outcome = "sent" | "retried" | "failed" | "suppressed" | "superseded" | "left";

/**
 * Delivers what the outbox holds: claimed under a lease, retried with backoff, never dropped. Each
 * send is cut at its deadline, and a batch stops sending (handing back the rest) while its lease
 * still has a margin, so no other instance ever claims a message this one may still send. A message
 * the server refused for good is given up at once. Mail goes out at least once: a server that took
 * a message and whose answer was lost gets it again at the next try, under the same Message-ID.
 */
export function createOutboxWorker(deps: Pick<Deps, "uow" | "mailer" | "clock" | "logger">, options: Partial<OutboxWorkerOptions> = {}) {
  const { uow, mailer, clock, logger } = deps;
  const { batchSize, pollIntervalMs, maxAttempts, backoff, sendDeadlineMs, ...rest } = { ...defaults, ...options };
  const leaseMs = Math.max(rest.leaseMs, batchSize * sendDeadlineMs + 2 * LEASE_MARGIN_MS);
  /** Aborted when stop's grace is over: the send in flight is cut, and its message due again at once. */
  let halt = new AbortController();
  let stopping = false;

  async function giveUpOrRetry(message: OutboxMessage, lease: Date, failure: unknown): Promise<Outcome> {
    const error = messageOf(failure).slice(0, ERROR_CHARS);
    const fields = { id: message.id, attempts: message.attempts, error };
    const refused = failure instanceof MailRefused;
    if (refused || message.attempts >= maxAttempts) {
      if (!(await uow.transaction((tx) => tx.outbox.markFailed(message.id, lease, error, null)))) return superseded(fields);
      logger.error("mail.gave_up", refused ? { ...fields, refused: true } : fields);
      return "failed";
    }
    const retryAt = new Date(clock.now().getTime() + backoff(message.attempts));
    if (!(await uow.transaction((tx) => tx.outbox.markFailed(message.id, lease, error, retryAt)))) return superseded(fields);
    logger.warn("mail.retry_scheduled", { ...fields, retryAt: retryAt.toISOString() });
    return "retried";
  }

  /**
   * A failure recorded too late: by then the message was no longer pending under this claim (its
   * lease ended and another instance claimed or sent it, or a bounce marked it suppressed), so it is
   * not this instance's to give up or retry, and neither is logged, lest an operator chase a give-up
   * that did not happen (found by a review).
   */
  function superseded(fields: Record<string, unknown>): Outcome {
    logger.warn("mail.claim_ended", fields);
    return "superseded";
  }

  /** One claimed message, unless the worker is stopping or its lease could end before the send is recorded: then it is "left" untried. */
  async function deliver(message: OutboxMessage, leaseEnds: number): Promise<Outcome> {
    // Decisions §11: an address that bounced or complained is never mailed again.
    if (await uow.read((db) => db.suppressions.has(message.to))) {
      await uow.transaction((tx) => tx.outbox.markSuppressed({ id: message.id }));
      logger.info("mail.suppressed", { id: message.id });
      return "suppressed";
    }
    // Right before the send: whatever held the worker until now, no other instance may have this message yet.
    if (stopping || clock.now().getTime() + sendDeadlineMs + LEASE_MARGIN_MS > leaseEnds) return "left";
    let sent: { messageId: string | null };
    try {
      const signal = AbortSignal.any([halt.signal, AbortSignal.timeout(sendDeadlineMs)]);
      const mail = { to: message.to, subject: message.subject, text: message.text, html: message.html };
      // Raced as well: a mailer that does not heed the signal holds the worker no longer for it.
      sent = await abortable(mailer.send(mail, { id: message.id, signal }), signal);
    } catch (error) {
      if (halt.signal.aborted) {
        // Tried, and maybe taken by the server before the cut: due again at once, for any instance.
        const cut = "cut: the instance stopped while sending";
        if (!(await uow.transaction((tx) => tx.outbox.markFailed(message.id, new Date(leaseEnds), cut, clock.now())))) {
          return superseded({ id: message.id, attempts: message.attempts, error: cut });
        }
        logger.warn("mail.send_cut", { id: message.id, attempts: message.attempts });
        return "retried";
      }
      return giveUpOrRetry(message, new Date(leaseEnds), error);
    }
    // Outside the try: a failure to record the send must not count as a failed send and mail it twice.
    const was = await uow.transaction((tx) => tx.outbox.markSent(message.id, clock.now(), sent.messageId));
    // Sent all the same: the bounce's audit entry counted it among the mail it suppressed.
    if (was === "suppressed") logger.warn("mail.sent_while_suppressed", { id: message.id });
    return "sent";
  }

  /** Claimed messages not tried after all: due again at once, for this instance's next run or another's, the attempt not counted. */
  function handBack(untried: OutboxMessage[], leaseEnds: number) {
    const ids = untried.map((m) => m.id);
    return uow.transaction((tx) => tx.outbox.release(ids, new Date(leaseEnds), clock.now()));
  }

  async function runOnce() {
    const totals: Record<Exclude<Outcome, "left">, number> = { sent: 0, retried: 0, failed: 0, suppressed: 0, superseded: 0 };
    let claimed: OutboxMessage[];
    do {
      const now = clock.now();
      const leaseEnds = now.getTime() + leaseMs;
      claimed = await uow.transaction((tx) => tx.outbox.claimDue(now, new Date(leaseEnds), batchSize));
      for (const [i, message] of claimed.entries()) {
        let outcome: Outcome;
        try {
          outcome = await deliver(message, leaseEnds);
        } catch (error) {
          // The database failing (a lookup, or the record of a send) ends the run; what it had not reached
          // is handed back all the same if the database lets it, and the message it was on, maybe sent,
          // waits out its lease (found by a review: the rest waited it out too, each an attempt down).
          await handBack(claimed.slice(i + 1), leaseEnds).catch(() => undefined);
          throw error;
        }
        if (outcome === "left") {
          await handBack(claimed.slice(i), leaseEnds);
          return totals;
        }
        totals[outcome] += 1;
      }
    } while (claimed.length === batchSize && !stopping);
    return totals;
  }

  // Pending mail is safe in the outbox: a stopped process just leaves it for the next.
  const schedule = periodic(runOnce, { intervalMs: pollIntervalMs, logger, event: "mail.worker_failed" });
  return {
    runOnce,
    start: schedule.start,
    notify: schedule.notify,
    /**
     * Takes no more mail (what the run has claimed and not tried is handed back), and lets the send in
     * flight finish for up to `graceMs` (by default its own deadline); then cuts it, its message due
     * again at once. Resolves once the run is over.
     */
    async stop(graceMs = sendDeadlineMs) {
      stopping = true;
      const grace = setTimeout(() => halt.abort(), graceMs);
      try {
        await schedule.stop();
      } finally {
        clearTimeout(grace);
        stopping = false;
        halt = new AbortController();
      }
    },
  };
}

/** The promise, or a rejection as soon as the signal aborts, whichever comes first. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
