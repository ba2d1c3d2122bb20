/** An event a provider posted to one of our webhooks. */
export interface ReceivedEvent {
  provider: string;
  /** The provider's own id for the event: a redelivery carries the same. */
  eventId: string;
  type: string;
  receivedAt: Date;
}

/**
 * Events already handled, by provider and id (decisions §8). Recorded in the transaction that
 * applies the event: what it changes and its record land together, or neither does.
 */
export interface WebhookEventLog {
  /** Records the event; false, recording nothing, when it was recorded before (a redelivery). */
  record(event: ReceivedEvent): Promise<boolean>;
}
