export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** suppressed: its recipient bounced or complained (decisions §11), so it is never sent. */
export type OutboxStatus = "pending" | "sent" | "failed" | "suppressed";

export interface OutboxMessage extends OutgoingMail {
  id: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  /** The mail provider's id of the message, as its sending returned it. */
  providerMessageId: string | null;
  /** When the provider reported it delivered (Resend's email.delivered). */
  deliveredAt: Date | null;
}

export interface OutboxReader {
  list(): Promise<OutboxMessage[]>;
  /** How many messages wait to be sent (pending) and how many were given up on (failed, kept for an operator). */
  backlog(): Promise<{ pending: number; failed: number }>;
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
  /**
   * Marks the message sent, whatever it was: it went out, whoever claimed it since. The status it
   * had (null when there is no such message): `suppressed` when a bounce or complaint for its
   * address came while it was being sent.
   */
  markSent(id: string, at: Date, providerMessageId: string | null): Promise<OutboxStatus | null>;
  /**
   * Hands back claimed messages not tried after all (the worker stopping, or its lease too short):
   * due again at `at`, their claim's attempt not counted; only those still held by the claim whose
   * lease ends at `leaseUntil`, as another instance may have claimed them since.
   */
  release(ids: readonly string[], leaseUntil: Date, at: Date): Promise<void>;
  /** Marks the message the provider knows by this id delivered; false when there is none. */
  markDelivered(providerMessageId: string, at: Date): Promise<boolean>;
  /** Marks one message, or every pending message to an address, suppressed: never sent. How many. */
  markSuppressed(which: { id: string } | { to: string }): Promise<number>;
  /**
   * Schedules another attempt at `retryAt`, or gives up (status "failed", kept for an operator) when
   * it is null: only while the message is still pending under the claim whose lease ends at
   * `leaseUntil`. A failure recorded late (a stalled database, a clock behind) never undoes what
   * another instance has done with the message since: sent it, or claimed it to send. True when
   * recorded; false when the message was no longer pending under that claim, and nothing changed.
   */
  markFailed(id: string, leaseUntil: Date, error: string, retryAt: Date | null): Promise<boolean>;
}

/**
 * A message the mail server refused for good (a 5xx to its recipient or to its content): no retry
 * changes that answer. A refusal of anything else (the sender, the shop's credentials) is the
 * shop's to mend, and is retried as any failure.
 */
export class MailRefused extends Error {
  override readonly name = "MailRefused";
}

export interface Mailer {
  /**
   * Delivers one message and says the provider's id of it, if it gives one; rejects when the mail
   * server refuses or cannot be reached, and, cutting the connection, when `signal` aborts. `id`
   * (the outbox's) names the message the same on every try, so a copy the server took from a try
   * whose answer was lost can be told apart from a second message.
   */
  send(mail: OutgoingMail, options?: { id?: string; signal?: AbortSignal }): Promise<{ messageId: string | null }>;
}

export interface SuppressionReader {
  /** Whether mail to this address must not be sent (it bounced, or its owner complained). */
  has(email: string): Promise<boolean>;
}

/** Addresses never to mail again (decisions §11), lowercased. */
export interface SuppressionList extends SuppressionReader {
  add(email: string, reason: "bounced" | "complained", at: Date): Promise<void>;
}
