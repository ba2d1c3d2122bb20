export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

export type OutboxStatus = "pending" | "sent" | "failed";

export interface OutboxMessage extends OutgoingMail {
  id: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

export interface OutboxReader {
  list(): Promise<OutboxMessage[]>;
}

/** Mail waiting to be delivered, written in the same transaction as the change that causes it. */
export interface MailOutbox extends OutboxReader {
  enqueue(mail: OutgoingMail & { id: string; createdAt: Date }): Promise<void>;
  /**
   * Takes up to `limit` pending messages due at `now`, counts the attempt and hides them until
   * `leaseUntil`, so that two workers never send the same message at once and a crashed worker's
   * messages come back.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<OutboxMessage[]>;
  markSent(id: string, at: Date): Promise<void>;
  /** Schedules another attempt at `retryAt`, or gives up (status "failed", kept for an operator) when it is null. */
  markFailed(id: string, error: string, retryAt: Date | null): Promise<void>;
}

export interface Mailer {
  /** Delivers one message; rejects when the mail server refuses or cannot be reached. */
  send(mail: OutgoingMail): Promise<void>;
}
