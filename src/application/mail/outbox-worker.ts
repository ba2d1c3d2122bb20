import type { Deps } from "../ports/index.ts";
import type { OutboxMessage } from "../ports/mail.ts";
import { periodic } from "../system/periodic.ts";
import { messageOf } from "../../domain/errors.ts";

export interface OutboxWorkerOptions {
  batchSize: number;
  /** How long a claimed message stays hidden, in case the worker dies mid-send. */
  leaseMs: number;
  pollIntervalMs: number;
  /** Attempts before a message is given up as "failed" and left for an operator. */
  maxAttempts: number;
  /** Delay before the next try after the `attempt`-th failed one. */
  backoff(attempt: number): number;
}

const defaults: OutboxWorkerOptions = {
  batchSize: 10,
  leaseMs: 5 * 60_000,
  pollIntervalMs: 5_000,
  maxAttempts: 12,
  backoff: (attempt) => Math.min(30_000 * 2 ** (attempt - 1), 60 * 60_000),
};

type Outcome = "sent" | "retried" | "failed" | "suppressed";

/** Delivers what the outbox holds: claimed under a lease, retried with backoff, never dropped. */
export function createOutboxWorker(deps: Pick<Deps, "uow" | "mailer" | "clock" | "logger">, options: Partial<OutboxWorkerOptions> = {}) {
  const { uow, mailer, clock, logger } = deps;
  const { batchSize, leaseMs, pollIntervalMs, maxAttempts, backoff } = { ...defaults, ...options };

  async function giveUpOrRetry(message: OutboxMessage, error: string): Promise<Outcome> {
    const fields = { id: message.id, attempts: message.attempts, error };
    if (message.attempts >= maxAttempts) {
      await uow.transaction((tx) => tx.outbox.markFailed(message.id, error, null));
      logger.error("mail.gave_up", fields);
      return "failed";
    }
    const retryAt = new Date(clock.now().getTime() + backoff(message.attempts));
    await uow.transaction((tx) => tx.outbox.markFailed(message.id, error, retryAt));
    logger.warn("mail.retry_scheduled", { ...fields, retryAt: retryAt.toISOString() });
    return "retried";
  }

  async function deliver(message: OutboxMessage): Promise<Outcome> {
    // Decisions §11: an address that bounced or complained is never mailed again.
    if (await uow.read((db) => db.suppressions.has(message.to))) {
      await uow.transaction((tx) => tx.outbox.markSuppressed({ id: message.id }));
      logger.info("mail.suppressed", { id: message.id });
      return "suppressed";
    }
    let sent: { messageId: string | null };
    try {
      sent = await mailer.send({ to: message.to, subject: message.subject, text: message.text, html: message.html });
    } catch (error) {
      return giveUpOrRetry(message, messageOf(error));
    }
    // Outside the try: a failure to record the send must not count as a failed send and mail it twice.
    await uow.transaction((tx) => tx.outbox.markSent(message.id, clock.now(), sent.messageId));
    return "sent";
  }

  async function runOnce() {
    const totals: Record<Outcome, number> = { sent: 0, retried: 0, failed: 0, suppressed: 0 };
    let claimed: OutboxMessage[];
    do {
      const now = clock.now();
      claimed = await uow.transaction((tx) => tx.outbox.claimDue(now, new Date(now.getTime() + leaseMs), batchSize));
      for (const message of claimed) totals[await deliver(message)] += 1;
    } while (claimed.length === batchSize);
    return totals;
  }

  // Pending mail is safe in the outbox: a stopped process just leaves it for the next.
  const schedule = periodic(runOnce, { intervalMs: pollIntervalMs, logger, event: "mail.worker_failed" });
  return { runOnce, start: schedule.start, notify: schedule.notify, stop: schedule.stop };
}
